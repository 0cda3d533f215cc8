#!/bin/sh
# Installs what is missing before `npm start` and `npm test`: node modules (when absent or older than
# package-lock.json) and the web app build (when absent or older than its sources). Safe to re-run.
set -eu
cd "$(dirname "$0")/.."

if [ ! -x node_modules/.bin/node ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install` rather than `npm ci`: it installs the locked versions too, and npm ci refuses
  # lockfiles that lack other platforms' optional binaries (as npm writes them on some setups).
  echo "feedlab: installing dependencies (npm install)..."
  npm install --no-audit --no-fund --loglevel=error
fi

# Two apps in one build: the SvelteKit app (index.html) and the participant shell (participant.html).
if [ ! -f web/build/index.html ] || [ ! -f web/build/participant.html ] || [ -n "$(find web/src web/static web/vite.config.ts web/vite.shared.ts web/vite.participant.config.ts web/package.json -newer web/build/index.html 2>/dev/null | head -n 1)" ]; then
  echo "feedlab: building the web app..."
  npm run build --silent -w web
fi
