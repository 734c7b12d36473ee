#!/usr/bin/env python3
"""Makes Sources/SilentPushReceiver/AdminOpenAPIDocument.swift from openapi.yaml, so the
server serves the document (GET /v1/openapi.json) without reading a file at run time.
With --check, exits 1 when the Swift file is not what openapi.yaml makes (make lint)."""
import json
import pathlib
import sys

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
source = root / "openapi.yaml"
target = root / "Sources/SilentPushReceiver/AdminOpenAPIDocument.swift"

document = yaml.safe_load(source.read_text())
text = json.dumps(document, indent=1, ensure_ascii=True)
# Swift strips the closing delimiter's indentation from every line of the literal.
body = "\n".join("        " + line for line in text.splitlines())
if '"""#' in text:
    sys.exit("openapi.yaml holds '\"\"\"#', which the Swift raw string cannot")
swift = f'''// Made by scripts/openapi.py from openapi.yaml (`make openapi`); do not edit.

/// The admin API's OpenAPI 3.1 document, served at `/v1/openapi.json`.
enum AdminOpenAPIDocument {{
    static let json = #"""
{body}
        """#
}}
'''
if sys.argv[1:] == ["--check"]:
    if not target.exists() or target.read_text() != swift:
        sys.exit(f"{target.relative_to(root)} is not what openapi.yaml makes: run make openapi")
else:
    target.write_text(swift)
