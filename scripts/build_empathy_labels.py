"""Build empathy-labels-v3.jsonl: every empathy-labels-v2 record unchanged, plus the w2 batch.

The w2 batch (a second, independent labeller; casual forum register, length decorrelated
from empathy) is split by message with a fixed salt before any result was looked at:
``split_for(prompt_id, test_fraction=0.5, salt="w2-half")``. The batch file's own ``split``
field is replaced by that split; its other fields are kept.

    python scripts/empathy_labels_v3/build.py W2_JSONL
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from empathybench.scorer.empathy_data import EmpathyLabel, bundled_data_path, split_for

W2_SALT = "w2-half"


def main() -> None:
    source = Path(sys.argv[1])
    v2 = bundled_data_path("empathy-labels-v2.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [line for line in v2 if line.strip()]
    for line in source.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        EmpathyLabel.model_validate(record)  # refuse a malformed row
        record["split"] = split_for(record["prompt_id"], test_fraction=0.5, salt=W2_SALT)
        record["batch"] = "w2"
        rows.append(json.dumps(record, ensure_ascii=False))
    target = bundled_data_path("empathy-labels-v3.jsonl")
    target.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {target}: {len(rows)} records")


if __name__ == "__main__":
    main()
