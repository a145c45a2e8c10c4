#!/usr/bin/env bash
# Installs the pinned Schemathesis CLI into contract-tests/.venv from the package index.
# Idempotent: when the venv already holds exactly schemathesis/requirements.txt (a stamp file
# records its hash), it returns at once. Needs Python 3.10+ (`python3`, or $PYTHON).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
requirements="$here/schemathesis/requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -x "$venv/bin/schemathesis" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  exit 0
fi

if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
  echo "install-schemathesis: Python 3.10 or newer is needed as '$python' (set PYTHON=...)" >&2
  exit 1
fi

echo "installing Schemathesis into $venv"
rm -rf "$venv"
"$python" -m venv "$venv"
# (Machines whose pip config lists index directories that do not exist make pip warn once per
# package; those lines say nothing about this install and are dropped.)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" \
  2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
"$venv/bin/schemathesis" --version
echo "$wanted" > "$stamp"
