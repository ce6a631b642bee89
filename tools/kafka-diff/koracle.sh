#!/bin/sh
# Kafka's own group coordinator shard (GroupCoordinatorShard: streams groups and offsets on one
# state) answering sgc's JSON-lines inputs, through our driver KOracle (tools/kafka-diff/java).
#
# usage: tools/kafka-diff/koracle.sh ORACLE_DIR RELEASE INPUTS.jsonl [--config settings.json] [--kafka-apis]
#   ORACLE_DIR  the folder of the oracle jars (kafka-RELEASE-oracle.jar), e.g. ../shared/kafka-oracle
#   RELEASE     4.2.0 | 4.3.0 | 4.4
# KOracle is compiled against that release's jar into target/kafka-diff/java-RELEASE/, again only
# when a source is newer than the classes. Needs Java 17 and Debian's jars (see oracle.sh).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 3 ] || { echo "usage: koracle.sh ORACLE_DIR RELEASE INPUTS.jsonl [--config settings.json] [--kafka-apis]" >&2; exit 2; }
dir=$1; rel=$2; shift 2
[ -d "$dir" ] || { echo "koracle.sh: no oracle folder $dir" >&2; exit 2; }
jar="$dir/kafka-$rel-oracle.jar"
[ -f "$jar" ] || { echo "koracle.sh: no oracle for release '$rel' in $dir (kafka-$rel-oracle.jar)" >&2; exit 2; }
command -v java >/dev/null 2>&1 || { echo "koracle.sh: java is missing (Java 17)" >&2; exit 2; }
command -v javac >/dev/null 2>&1 || { echo "koracle.sh: javac is missing (a Java 17 JDK)" >&2; exit 2; }
J=/usr/share/java
cp=$jar
for j in jackson-databind jackson-core jackson-annotations slf4j-api slf4j-nop re2j hdrhistogram lz4-java snappy-java zstd-jni protobuf; do
  [ -f "$J/$j.jar" ] || { echo "koracle.sh: $J/$j.jar missing (apt-get install libjackson2-databind-java libslf4j-java libre2j-java libhdrhistogram-java liblz4-java libsnappy-java libzstd-jni-java libprotobuf-java)" >&2; exit 2; }
  cp=$cp:$J/$j.jar
done
out="$root/target/kafka-diff/java-$rel"
stamp="$out/KOracle.class"
stale=
if [ ! -f "$stamp" ] || [ "$jar" -nt "$stamp" ]; then stale=1; fi
for src in "$here"/java/*.java; do [ "$src" -nt "$stamp" ] && stale=1; done
if [ -n "$stale" ]; then
  mkdir -p "$out"
  rm -f "$out"/*.class
  if ! javac -nowarn -Xlint:none -d "$out" -cp "$cp" "$here"/java/*.java > "$out/javac.log" 2>&1; then
    grep -v '^Note:' "$out/javac.log" >&2
    echo "koracle.sh: KOracle did not compile against $jar" >&2
    rm -f "$out"/*.class
    exit 2
  fi
fi
exec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$out:$cp" KOracle "$@"
