#!/usr/bin/env bash
# A failing engine for the tests: serves `othello-arena engine ARGS...` ($1 is the
# binary) and, at the Nth ($2) move asked of one process (GTP genmove, NBoard go),
# dies (exit 3) or hangs (never answers) as $3 says, once: it leaves the file $4
# behind, and a process that finds it serves every move.
set -o pipefail
bin=$1 n=$2 how=$3 once=$4
shift 4
if [ -e "$once" ]; then
  exec "$bin" engine "$@"
fi
asked=0
while IFS= read -r line; do
  case $line in
    genmove*|go)
      asked=$((asked + 1))
      if [ "$asked" -ge "$n" ]; then
        touch "$once"
        echo "engine-fails.sh: failing ($how) at move $asked, as the test asked" >&2
        if [ "$how" = die ]; then
          exit 3
        fi
        continue
      fi
      ;;
  esac
  printf '%s\n' "$line"
done | "$bin" engine "$@"
