"""Build a bundled empathy label set: an earlier set unchanged, plus new labellers' batches.

Each new batch is split by message with a fixed salt before any result is looked at
(``split_for(prompt_id, test_fraction, salt)``); the batch file's own ``split`` field is
replaced by that split and ``batch`` is set to the batch name; its other fields are kept.

    # v3 = v2 + w2 (second labeller), split salt w2-half
    python scripts/build_empathy_labels.py --base empathy-labels-v2.jsonl \
        --out empathy-labels-v3.jsonl --salt w2-half w2=W2_JSONL
    # v4 = v3 + w3 + w4 (two more independent labellers), split salt w34-half
    python scripts/build_empathy_labels.py --base empathy-labels-v3.jsonl \
        --out empathy-labels-v4.jsonl --salt w34-half w3=W3_JSONL w4=W4_JSONL
    # v5 = v4 + w5 + w6 (two more independent labellers), split salt w56-half
    python scripts/build_empathy_labels.py --base empathy-labels-v4.jsonl \
        --out empathy-labels-v5.jsonl --salt w56-half --test-fraction 0.5 w5=W5_JSONL w6=W6_JSONL
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from empathybench.scorer.empathy_data import EmpathyLabel, bundled_data_path, split_for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, help="bundled set kept unchanged")
    parser.add_argument("--out", required=True, help="bundled set to write")
    parser.add_argument("--salt", required=True)
    parser.add_argument("--test-fraction", type=float, default=0.5)
    parser.add_argument("batches", nargs="+", help="NAME=JSONL, one per new batch")
    args = parser.parse_args()
    base = bundled_data_path(args.base).read_text(encoding="utf-8").splitlines()
    rows = [line for line in base if line.strip()]
    ids = {json.loads(line)["id"] for line in rows}
    messages = {json.loads(line)["prompt_id"] for line in rows}
    for batch in args.batches:
        name, _, source = batch.partition("=")
        if not name or not source:
            parser.error(f"{batch!r}: give each batch as NAME=JSONL")
        new_messages: set[str] = set()
        for line in Path(source).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            EmpathyLabel.model_validate(record)  # refuse a malformed row
            if record["id"] in ids or record["prompt_id"] in messages:
                parser.error(f"{source}: {record['id']} reuses an id or message of the sets before")
            ids.add(record["id"])
            new_messages.add(record["prompt_id"])
            record["split"] = split_for(
                record["prompt_id"], test_fraction=args.test_fraction, salt=args.salt
            )
            record["batch"] = name
            rows.append(json.dumps(record, ensure_ascii=False))
        messages |= new_messages
    target = bundled_data_path(args.out)
    target.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {target}: {len(rows)} records")


if __name__ == "__main__":
    main()
