#!/usr/bin/env bash
# TPC-DS with the same runner, report and options as TPC-H: bench/tpch.sh --suite tpcds. Options: --help
#   bench/tpcds.sh --sf 1 --engines vanilla,rowmatch,comet --reps 3
set -euo pipefail
exec "$(dirname "$0")/tpch.sh" --suite tpcds "$@"
