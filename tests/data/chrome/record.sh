#!/bin/sh
# SPDX-License-Identifier: MIT
# Rebuild the fixtures: prog.cpuprofile.gz, prog.js under Node's own sampling profiler
# (node --cpu-prof, 250 us interval), and prog.trace.json.gz, a Chrome Trace Event file with
# Profile / ProfileChunk events (prog.js profiled through the inspector with the trace category
# disabled-by-default-v8.cpu_profiler on, as DevTools' Performance panel records). Needs nodejs
# (Debian 12 has node 18; these were recorded with node 20).
set -eu
cd "$(dirname "$0")"
here=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node --cpu-prof --cpu-prof-interval 250 --cpu-prof-dir "$tmp" prog.js > /dev/null
for f in "$tmp"/*.cpuprofile; do gzip -9n < "$f" > prog.cpuprofile.gz; done
(cd "$tmp" && node --trace-event-categories disabled-by-default-v8.cpu_profiler --trace-event-file-pattern trace.json -e "
const { Session } = require('inspector');
const s = new Session();
s.connect();
s.post('Profiler.enable', () => s.post('Profiler.start', () => { require('$here/prog.js'); s.post('Profiler.stop', () => {}); }));
" > /dev/null)
gzip -9n < "$tmp/trace.json" > prog.trace.json.gz
