"""Empathy in the activations: linear probes over layers, baselines and steering.

Layer numbering, used by both the probe and the steering hook: layer ``i`` is the output of
decoder block ``i`` (0-based), i.e. ``hidden_states[i + 1]``. Modules, one job each:

- ``pairs``: the bundled contrastive pairs, scenario-grouped splits, keyword ablation;
- ``layers``: decoder blocks of Llama, Qwen2, Mistral, Gemma, Phi-3, GPT-2, GPT-NeoX (+ override);
- ``loading``: ``local/smollm2``, ``local/PATH`` and ``hf:PATH`` models (torch imported lazily);
- ``activations``: one forward pass reads many layers; masked-mean or last-token pooling;
- ``probe``: the mean-difference probe, AUROC / accuracy / paired accuracy, baselines;
- ``training`` / ``evaluation``: train and save a probe; the layer sweep, LOSO, correlations;
- ``steering`` / ``sweep``: the ``alpha * sigma * u`` hook, KV-cache generation, the alpha sweep;
- ``coherence``, ``correlation``, ``plots``, ``results`` (the records written to disk).

See docs/probes.md.
"""
