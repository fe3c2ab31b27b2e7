#!/usr/bin/env bash
# Builds the bench module and runs JMH on it: bench/jmh.sh [JMH args], e.g. bench/jmh.sh ComparatorBench
# With no arguments it runs the core comparator benchmarks. JVM flags come from the root pom
# (rowmatch.jvm.flags), copied into the bench resources at build time; JMH forks inherit them.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -ntp -q -pl bench -am package -DskipTests
flags=$(cat bench/target/classes/rowmatch-jvm-flags.txt)
cp="bench/target/classes:$(cat bench/target/classpath.txt)"
if [ $# -eq 0 ]; then set -- 'io.rowmatch.bench.core.(ComparatorBench|BuildBench)'; fi
# shellcheck disable=SC2086
exec java $flags -cp "$cp" org.openjdk.jmh.Main "$@"
