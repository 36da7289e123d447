#!/bin/sh
# SPDX-License-Identifier: MIT
# Rebuild prog.legacy.cpuprofile.gz: prog.js profiled (250 us) by v8-profiler-next, the npm
# module that still writes V8's legacy .cpuprofile ("head" node tree, "timestamps" in us,
# "startTime"/"endTime" in whole seconds), as Node 8-10 tools and old Chrome saved it. The module
# is built from source against the local node's headers (Debian's nodejs-dev or node 20's
# /usr/include/node): npm install, then node-pre-gyp rebuild --build-from-source --nodedir=/usr.
set -eu
cd "$(dirname "$0")"
here=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm init -y > /dev/null
npm install --ignore-scripts v8-profiler-next@1.10.0 > /dev/null
(cd node_modules/v8-profiler-next &&
	printf '{"variables": {"action_after_build": "true"}}\n' > config.gypi && # what its install script writes
	../.bin/node-pre-gyp rebuild --build-from-source --nodedir=/usr > /dev/null 2>&1)
cat > rec.js <<'JS'
const fs = require('fs');
const v8p = require('v8-profiler-next');
v8p.setSamplingInterval(250);
v8p.setGenerateType(0); /* the legacy format */
v8p.startProfiling('prog', true);
require(process.argv[2]);
const p = v8p.stopProfiling('prog');
p.export((e, r) => { fs.writeFileSync('legacy.cpuprofile', r); p.delete(); });
JS
node rec.js "$here/prog.js" > /dev/null
gzip -9n < legacy.cpuprofile > "$here/prog.legacy.cpuprofile.gz"
