#!/usr/bin/env bash
# Installs the real load tools the import tests run (JMeter, Gatling, Locust, hey, vegeta) and Apache
# Otava, which the change-point tests check `paasmon changes` against, into $PAASMON_TOOLS_DIR
# (default .paasmon/tools under the repository, gitignored); a second run reuses it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tools="${PAASMON_TOOLS_DIR:-$here/../../../.paasmon/tools}"
mkdir -p "$tools"
tools="$(cd "$tools" && pwd)"
m2="$tools/m2"

if [ ! -x "$tools/bin/hey" ] || [ ! -x "$tools/bin/vegeta" ]; then
  export GOPATH="$tools/go" GOMODCACHE="$tools/go/pkg/mod" GOCACHE="$tools/go/cache" GOBIN="$tools/bin" GOFLAGS=-modcacherw
  go install github.com/rakyll/hey@v0.1.5
  go install github.com/tsenart/vegeta/v12@v12.13.0
fi

if [ ! -x "$tools/locust-venv/bin/locust" ]; then
  python3 -m venv "$tools/locust-venv"
  "$tools/locust-venv/bin/pip" install -q --no-cache-dir locust==2.47.0
fi

if [ ! -x "$tools/otava-venv/bin/otava" ]; then
  python3 -m venv "$tools/otava-venv"
  "$tools/otava-venv/bin/pip" install -q --no-cache-dir apache-otava==0.8.0
fi

home="$tools/jmeter-5.6.3"
if [ ! -f "$home/bin/ApacheJMeter.jar" ]; then
  lib="$(mktemp -d)"
  mvn -q -B -Dmaven.repo.local="$m2" -f "$here/jmeter-pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib"
  rm -rf "$home" && mkdir -p "$home/lib/ext" "$home/lib/junit"
  (cd "$home" && unzip -q "$lib/ApacheJMeter_config-5.6.3.jar" 'bin/*')
  cp "$lib"/ApacheJMeter_{core,http,components,functions}-5.6.3.jar "$home/lib/ext/"
  find "$lib" -name '*.jar' ! -name 'ApacheJMeter*' -exec cp {} "$home/lib/" \;
  cp "$lib/ApacheJMeter-5.6.3.jar" "$home/bin/ApacheJMeter.jar"
  rm -rf "$lib"
fi

if [ ! -s "$tools/gatling-3.13.5.classpath" ]; then
  mvn -q -B -Dmaven.repo.local="$m2" -f "$here/gatling-pom.xml" dependency:build-classpath \
    -Dmdep.outputFile="$tools/gatling-3.13.5.classpath"
fi
echo "load tools in $tools"
