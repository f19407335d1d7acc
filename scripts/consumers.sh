#!/usr/bin/env bash
# The consumer matrix: packs the package and runs each app of test/consumers/ against the tarball,
# as a user who ran `npm install messaging-webhooks express pino` would get it.
#
#   bash scripts/consumers.sh [tarball]     (default: `npm pack` of the current build in dist/)
#   CONSUMER_APPS="ts-cjs node-http-only" bash scripts/consumers.sh     (only those apps; `docs`: the docs check)
#
# Two install roots in a temporary folder, each `npm install`ed once from the tarball (other
# packages at the versions in this repo's node_modules, from the npm cache when there):
#   with-express/  messaging-webhooks express pino bullmq ioredis fastify hono @types/express
#                  @types/node ajv ajv-formats (openapi-json: the JSON Schemas, as a user validates
#                  with them)
#   node-only/     messaging-webhooks pino @types/node        (no @types/express)
#   with-express/tools/   the test tools of docs/testing-your-app.md (tsx jest ts-jest typescript
#                  @types/jest vitest), linked from this repo's node_modules: the same pinned versions without
#                  installing jest's ~200 packages again (15 s of CPU); its apps resolve the package,
#                  express and the types from with-express/, the tools from here, and the other apps
#                  do not see the tools.
#   node-only/tools/   esbuild and miniflare (workerd), linked the same way: cloudflare-worker bundles
#                  its Workers from the package in node-only/ and runs them in workerd.
# Each app is copied under its root (node_modules resolve upwards), compiled with this repo's tsc
# when it has a tsconfig.json, and run: it mounts the receiver, posts one fixture and exits
# non-zero unless its callback ran. skipLibCheck is false where the package's declarations are the
# point (ts-cjs: the .d.cts of all eight entries; node-http-only: no @types/express), true elsewhere
# (the `tsc --init` default). The apps of docs/testing-your-app.md run their `npm test` instead:
# node-test (node:test with tsx), jest-esm (jest's ESM mode, ts-jest) and vitest test an Express app
# with the emulator, their tsconfig.json only type-checks; jest-cjs runs jest's default CommonJS setup and
# checks the error it gives; live-chat-bot runs examples/live-chat-bot.ts (copied in) against the
# emulator on Vitest (Redis session test skipped with its reason unless Redis answers or
# REQUIRE_REDIS=1). Before the apps, scripts/check-docs.mjs checks the tarball's Markdown:
# every relative link resolves inside the package, and blocks shown as an app's files are those
# files. The last line is "consumer matrix: N passed, N failed".
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
apps="$repo/test/consumers"
tsc="$repo/node_modules/.bin/tsc"
work="$(mktemp -d "${TMPDIR:-/tmp}/consumers.XXXXXX")"
trap 'rm -rf "$work"' EXIT

version() { node -p "require('$repo/node_modules/$1/package.json').version"; }
pin() { for name in "$@"; do printf '%s@%s ' "$name" "$(version "$name")"; done; }

tarball="${1:-}"
if [ -z "$tarball" ]; then
  tarball="$work/$(cd "$repo" && npm pack --silent --pack-destination "$work" | tail -1)" || exit 1
fi
echo "tarball: $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"

install_root() { # <dir> <packages...>
  local dir="$1"
  shift
  mkdir -p "$dir" && echo '{ "private": true }' >"$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund --prefer-offline --no-package-lock "$tarball" "$@") ||
    { echo "npm install failed in $dir"; return 1; }
}

link_tools() { # <dir> <packages...>: this repo's installs of the packages, and their bins
  local dir="$1" name bin
  shift
  for name in "$@"; do
    mkdir -p "$(dirname "$dir/node_modules/$name")" "$dir/node_modules/.bin"
    ln -s "$repo/node_modules/$name" "$dir/node_modules/$name"
    for bin in $(node -p "const { name, bin } = require('$repo/node_modules/$name/package.json');
      (typeof bin === 'string' ? [name.split('/').pop()] : Object.keys(bin ?? {})).join(' ')"); do
      ln -sf "$repo/node_modules/.bin/$bin" "$dir/node_modules/.bin/$bin"
    done
  done
}

started=$SECONDS
install_root "$work/with-express" $(pin express pino bullmq ioredis fastify hono @types/express @types/node ajv ajv-formats) || exit 1
install_root "$work/node-only" $(pin pino @types/node) || exit 1
link_tools "$work/with-express/tools" tsx jest ts-jest typescript @types/jest vitest
link_tools "$work/node-only/tools" esbuild miniflare
echo "installed in $((SECONDS - started)) s"
[ ! -e "$work/node-only/node_modules/@types/express" ] || { echo "node-only root has @types/express"; exit 1; }

# Copy every app under its root, then compile the TypeScript ones in parallel (tsc dominates).
APPS=(ts-esm:with-express ts-cjs:with-express ts-bundler:with-express js-esm:with-express
  js-cjs:with-express node-http-only:node-only source-maps:with-express openapi-json:with-express)
APPS+=(node-test:with-express/tools jest-esm:with-express/tools jest-cjs:with-express/tools vitest:with-express/tools)
APPS+=(live-chat-bot:with-express/tools)
APPS+=(cloudflare-worker:node-only/tools)
for spec in "${APPS[@]}"; do
  name="${spec%%:*}" dir="$work/${spec#*:}/apps/${spec%%:*}"
  if [ -n "${CONSUMER_APPS:-}" ] && [[ " $CONSUMER_APPS " != *" $name "* ]]; then continue; fi
  mkdir -p "$(dirname "$dir")" && cp -R "$apps/$name" "$dir"
  # the example itself, as a user copies it: its imports name the package, here the tarball's
  [ "$name" != live-chat-bot ] || cp "$repo/examples/live-chat-bot.ts" "$dir/"
  if [ -f "$dir/tsconfig.json" ]; then
    (cd "$dir" && "$tsc" -p . >tsc.log 2>&1; echo $? >tsc.rc) &
  fi
done
wait
echo "compiled in $((SECONDS - started)) s"

passed=0
failed=0
failures=()
if [ -z "${CONSUMER_APPS:-}" ] || [[ " $CONSUMER_APPS " == *" docs "* ]]; then
  if node "$repo/scripts/check-docs.mjs" "$tarball"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=(docs); fi
fi
run_app() { # <name> <root> [node flags...]
  local name="$1" root="$2"
  shift 2
  if [ -n "${CONSUMER_APPS:-}" ] && [[ " $CONSUMER_APPS " != *" $name "* ]]; then return; fi
  local dir="$work/$root/apps/$name" ok=1 main=main.js
  if [ -f "$dir/tsconfig.json" ]; then
    main=dist/main.js
    [ "$(cat "$dir/tsc.rc")" = 0 ] || { echo "$name: tsc failed"; ok=0; }
    cat "$dir/tsc.log"
  fi
  if [ "$ok" -eq 1 ]; then
    (cd "$dir" && timeout 60 node "$@" "$main") || ok=0
  fi
  if [ "$ok" -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$name $*"); fi
}

run_test_script() { # <name> <root>: the app's `npm test`, after its type check
  local name="$1" root="$2"
  if [ -n "${CONSUMER_APPS:-}" ] && [[ " $CONSUMER_APPS " != *" $name "* ]]; then return; fi
  local dir="$work/$root/apps/$name" ok=1
  [ "$(cat "$dir/tsc.rc")" = 0 ] || { echo "$name: tsc failed"; ok=0; }
  cat "$dir/tsc.log"
  if [ "$ok" -eq 1 ]; then
    (cd "$dir" && timeout 120 npm test --silent >test.log 2>&1) || { cat "$dir/test.log"; ok=0; }
  fi
  if [ "$ok" -eq 1 ]; then
    echo "$name: ok ($(sed 's/\x1b\[[0-9;]*m//g' "$dir/test.log" | grep -m1 -E '^# pass|^Tests:|^ +Tests '))"
    passed=$((passed + 1))
  else
    echo "$name: FAIL"
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

run_app ts-esm with-express
run_app ts-cjs with-express
run_app ts-bundler with-express
run_app js-esm with-express
run_app js-cjs with-express
# Node < 20.19 cannot require() ESM: the flag gives today's Node that behaviour.
run_app js-cjs with-express --no-experimental-require-module
run_app node-http-only node-only
run_app source-maps with-express --enable-source-maps
run_app openapi-json with-express
run_test_script node-test with-express/tools
run_test_script jest-esm with-express/tools
run_test_script vitest with-express/tools
run_test_script live-chat-bot with-express/tools
run_app jest-cjs with-express/tools
run_app cloudflare-worker node-only/tools

[ "${#failures[@]}" -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
echo "consumer matrix: ${passed} passed, ${failed} failed ($((SECONDS - started)) s)"
[ "$failed" -eq 0 ]
