"""Build the SGD and CrossWOZ subsets shipped in ctxlab/data from the full splits.

    python scripts/build_corpus_subsets.py [/work/shared/data]

SGD: the first 32 dialogues of each of the five dev files (001 is single-service, the others
multi-service), every upstream field kept except the per-frame ``service_call`` and
``service_results`` (backend results the dialogues do not show). CrossWOZ: the first 160
validation dialogues in file order, unchanged. Both are written as gzipped JSON in the
upstream record format, so the same loaders read the subset and the full split.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ctxlab" / "data"
PER_SGD_FILE = 32
CROSSWOZ_COUNT = 160


def _write(path: Path, data: object) -> None:
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    path.write_bytes(gzip.compress(raw, mtime=0))


def build_sgd(src: Path) -> None:
    subset = []
    for path in sorted(src.glob("dev_dialogues_*.json.gz")):
        for record in json.loads(gzip.decompress(path.read_bytes()))[:PER_SGD_FILE]:
            for turn in record["turns"]:
                for frame in turn["frames"]:
                    frame.pop("service_call", None)
                    frame.pop("service_results", None)
            subset.append(record)
    _write(OUT / "sgd" / "dialogues.json.gz", subset)
    shutil.copyfile(src / "dev_schema.json", OUT / "sgd" / "schema.json")
    shutil.copyfile(src / "LICENSE.txt", OUT / "sgd" / "LICENSE")


def build_crosswoz(src: Path) -> None:
    with zipfile.ZipFile(src / "val.json.zip") as zf:
        records = json.loads(zf.read("val.json").decode("utf-8"))
    subset = dict(list(records.items())[:CROSSWOZ_COUNT])
    _write(OUT / "crosswoz" / "dialogues.json.gz", subset)
    shutil.copyfile(src / "LICENSE", OUT / "crosswoz" / "LICENSE")


if __name__ == "__main__":
    base = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data")
    build_sgd(base / "sgd")
    build_crosswoz(base / "crosswoz")
    print("wrote", *(p.relative_to(ROOT) for p in sorted(OUT.glob("[sc]*/*"))))
