#!/bin/sh
# matrices_test: the real-matrix suite's converters, manifest and script,
# offline (tools/matrices_test.py).
exec python3 "$(dirname "$0")/matrices_test.py"
