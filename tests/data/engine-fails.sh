#!/usr/bin/env bash
# A failing engine for the tests: serves `othello-arena engine ARGS...` ($1 is the
# binary) and, at the Nth ($2) move asked of one process (GTP genmove, NBoard go or hint),
# fails as $3 says, once: it leaves the file $4 behind, and a process that finds it
# serves every move. Ways to fail: die (exit 3), hang (never answer), garble (answer
# zz), illegal (answer a1, never legal before the corners fill).
set -o pipefail
bin=$1 n=$2 how=$3 once=$4
shift 4
if [ -e "$once" ]; then
  exec "$bin" engine "$@"
fi
# The answers this script writes itself go where the engine's go: the client.
exec 3>&1
asked=0
while IFS= read -r line; do
  case $line in
    genmove*|go|hint*)
      asked=$((asked + 1))
      if [ "$asked" -ge "$n" ]; then
        touch "$once"
        echo "engine-fails.sh: failing ($how) at move $asked, as the test asked" >&2
        case $how in
          die) exit 3 ;;
          garble | illegal)
            answer=zz
            if [ "$how" = illegal ]; then answer=a1; fi
            if [ "$line" = go ]; then printf '=== %s\n' "$answer" >&3; else printf '= %s\n\n' "$answer" >&3; fi
            ;;
        esac
        continue
      fi
      ;;
  esac
  printf '%s\n' "$line"
done | "$bin" engine "$@"
