#!/usr/bin/env bash
# The commit a run's rows carry: HEAD's short hash, with "-dirty" when a
# tracked file outside results/ differs from it (the code measured is not
# HEAD's). Results written by earlier runs do not count. "unknown" outside
# a git checkout.
#
#   tools/commit_stamp.sh [DIR]     (default: the current folder)
cd "${1:-.}" 2>/dev/null || { echo unknown; exit 0; }
head=$(git rev-parse --short HEAD 2>/dev/null) || { echo unknown; exit 0; }
if git diff --quiet HEAD -- . ':(exclude)results' 2>/dev/null; then
  echo "$head"
else
  echo "$head-dirty"
fi
