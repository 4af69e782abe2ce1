#!/usr/bin/env bash
# outside_consumer.sh JAR: a Java program outside the repository, compiled
# against the jar alone and run with nothing else on its class path
# (outside/UseSstFilter.java): the jar is all a Java user needs.
set -euo pipefail
jar="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/outside/UseSstFilter.java" "$work/"
cp "$jar" "$work/sstfilter-rocksdbjni.jar"
cd "$work"
unset CLASSPATH
javac -cp sstfilter-rocksdbjni.jar UseSstFilter.java
java -cp sstfilter-rocksdbjni.jar:. UseSstFilter "$work/db" | tee out.txt
grep -q '^sstfilter.LevelAware:10:10: 0 wrong answers' out.txt
