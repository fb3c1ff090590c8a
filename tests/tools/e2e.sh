#!/usr/bin/env bash
# make e2e: the tools users bring, against a fresh `dynamopg serve --db memory`
# on a free port. Steps: the AWS CLI walk-through of docs/getting-started.md,
# AWS_ENDPOINT_URL_DYNAMODB with the CLI, boto3 and the JavaScript SDK v3
# (CRUD and Query), dynamodb-admin in headless Chromium browsing a table
# (screenshot: docs/img/dynamodb-admin.png) and editing through its web UI:
# Create item, edit and Save, Delete, each checked with the AWS CLI
# (screenshot: docs/img/dynamodb-admin-edit.png). A tool that cannot be
# installed fails its step with the reason; nothing is skipped silently.
# Needs: bin/dynamopg (make build), python3, aws, node/npm (network to the npm
# registry, or a warm npm cache), chromium (apt-get install chromium).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOLS=$ROOT/tests/tools
BIN=${DYNAMOPG_BIN:-$ROOT/bin/dynamopg}
SHOT=${E2E_SCREENSHOT:-$ROOT/docs/img/dynamodb-admin.png}
EDIT_SHOT=${E2E_EDIT_SCREENSHOT:-$ROOT/docs/img/dynamodb-admin-edit.png}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
WORK=$(mktemp -d -t dynamopg-e2e-XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { # URL SECONDS
  for _ in $(seq 1 $(($2 * 10))); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done
  return 1
}

declare -a RESULTS=()
FAILED=0
step() { # NAME COMMAND...
  local name=$1; shift
  echo "== $name"
  if "$@"; then RESULTS+=("ok    $name"); else RESULTS+=("FAIL  $name"); FAILED=1; fi
}

[ -x "$BIN" ] || { echo "e2e: $BIN missing (make build)"; exit 1; }
PORT=$(free_port)
EP=http://127.0.0.1:$PORT
"$BIN" serve --db memory --listen "127.0.0.1:$PORT" --log-level warn >"$WORK/server.log" 2>&1 &
PIDS+=($!)
if ! wait_http "$EP/ready" 20; then echo "e2e: server did not become ready"; cat "$WORK/server.log"; exit 1; fi
echo "dynamopg serving at $EP (--db memory)"
export AWS_ACCESS_KEY_ID=e2e AWS_SECRET_ACCESS_KEY=e2e AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1 AWS_PAGER=""
unset AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB

# 1. The getting-started walk-through, block by block.
walkthrough() {
  command -v aws >/dev/null || { echo "  aws CLI not installed (pip install awscli, or the v2 bundle)"; return 1; }
  aws --version
  python3 "$TOOLS/walkthrough.py" "$ROOT/docs/getting-started.md" "$EP"
}
step "AWS CLI: docs/getting-started.md walk-through" walkthrough

# 2. AWS_ENDPOINT_URL_DYNAMODB with the CLI: informational for the CLI v1
# (releases before botocore 1.31 ignore it and would call AWS: no
# credentials work there, so a wrong target fails fast instead of passing).
cli_env() {
  command -v aws >/dev/null || { echo "  aws CLI not installed"; return 1; }
  local out
  if out=$(AWS_ENDPOINT_URL_DYNAMODB=$EP AWS_MAX_ATTEMPTS=1 timeout 30 aws dynamodb create-table --table-name CliEnv \
      --attribute-definitions AttributeName=k,AttributeType=S --key-schema AttributeName=k,KeyType=HASH \
      --billing-mode PAY_PER_REQUEST --query TableDescription.TableName --output text 2>&1) && [ "$out" = CliEnv ] \
     && aws dynamodb describe-table --endpoint-url "$EP" --table-name CliEnv >/dev/null 2>&1; then
    echo "  $(aws --version 2>&1 | cut -d' ' -f1,4) honours AWS_ENDPOINT_URL_DYNAMODB"
    aws dynamodb delete-table --endpoint-url "$EP" --table-name CliEnv >/dev/null
  else
    echo "  this CLI ($(aws --version 2>&1)) does not honour AWS_ENDPOINT_URL_DYNAMODB: use --endpoint-url"
    echo "  | ${out:0:300}"
    return 1
  fi
}
step "AWS CLI: AWS_ENDPOINT_URL_DYNAMODB" cli_env

# 3. boto3, endpoint from the environment.
boto() {
  python3 -c 'import boto3' 2>/dev/null || { echo "  boto3 not installed (pip install 'boto3>=1.28')"; return 1; }
  AWS_ENDPOINT_URL_DYNAMODB=$EP python3 "$TOOLS/boto3_crud.py"
}
step "boto3: CRUD and Query (AWS_ENDPOINT_URL_DYNAMODB)" boto

# npm packages into a fresh directory.
NPM_DIR=$WORK/npm
npm_install() {
  command -v npm >/dev/null || { echo "  node/npm not installed (apt-get install nodejs npm)"; return 1; }
  mkdir -p "$NPM_DIR" && (cd "$NPM_DIR" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error @aws-sdk/client-dynamodb dynamodb-admin@5 playwright-core >"$WORK/npm.log" 2>&1) \
    || { echo "  npm install failed:"; tail -20 "$WORK/npm.log"; return 1; }
  (cd "$NPM_DIR" && npm ls --depth=0 2>/dev/null | tail -n +2)
}
step "npm install @aws-sdk/client-dynamodb dynamodb-admin@5 playwright-core" npm_install

# 4. The JavaScript SDK v3, endpoint from the environment.
js() {
  [ -d "$NPM_DIR/node_modules/@aws-sdk/client-dynamodb" ] || { echo "  @aws-sdk/client-dynamodb not installed (see npm step)"; return 1; }
  cp "$TOOLS/js_crud.mjs" "$NPM_DIR/" && (cd "$NPM_DIR" && AWS_ENDPOINT_URL_DYNAMODB=$EP node js_crud.mjs)
}
step "JavaScript SDK v3: CRUD and Query (AWS_ENDPOINT_URL_DYNAMODB)" js

# 5. dynamodb-admin in headless Chromium. dynamodb-admin@5 is pinned: the
# scripts drive its pages (views/scan.ejs, views/item.ejs: the Ace JSON
# editor, #saveButton, Delete).
ADMIN_URL=
admin() {
  [ -x "$NPM_DIR/node_modules/.bin/dynamodb-admin" ] || { echo "  dynamodb-admin not installed (see npm step)"; return 1; }
  [ -d "$NPM_DIR/node_modules/playwright-core" ] || { echo "  playwright-core not installed (see npm step)"; return 1; }
  [ -x "$CHROMIUM" ] || { echo "  $CHROMIUM not found (apt-get install chromium)"; return 1; }
  "$CHROMIUM" --version
  aws dynamodb create-table --endpoint-url "$EP" --table-name AdminDemo \
    --attribute-definitions AttributeName=Artist,AttributeType=S AttributeName=SongTitle,AttributeType=S \
    --key-schema AttributeName=Artist,KeyType=HASH AttributeName=SongTitle,KeyType=RANGE \
    --billing-mode PAY_PER_REQUEST >/dev/null || return 1
  for s in "Call Me Today" "Howdy" "Happy Day"; do
    aws dynamodb put-item --endpoint-url "$EP" --table-name AdminDemo \
      --item "{\"Artist\":{\"S\":\"Acme Band\"},\"SongTitle\":{\"S\":\"$s\"},\"Awards\":{\"N\":\"3\"}}" || return 1
  done
  local aport; aport=$(free_port)
  (cd "$NPM_DIR" && DYNAMO_ENDPOINT=$EP exec node_modules/.bin/dynamodb-admin --port "$aport" --host 127.0.0.1) >"$WORK/admin.log" 2>&1 &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$aport/" 30 || { echo "  dynamodb-admin did not start:"; tail -20 "$WORK/admin.log"; return 1; }
  ADMIN_URL=http://127.0.0.1:$aport
  mkdir -p "$(dirname "$SHOT")"
  cp "$TOOLS/admin_chromium.mjs" "$TOOLS/admin_browse.mjs" "$NPM_DIR/" && (cd "$NPM_DIR" && ADMIN_URL=$ADMIN_URL TABLE=AdminDemo \
    ITEM_TEXT="Call Me Today" SHOT="$SHOT" CHROMIUM="$CHROMIUM" PROFILE_DIR="$WORK/chromium-profile" \
    timeout 120 node admin_browse.mjs)
}
step "dynamodb-admin: browse a table in headless Chromium (screenshot)" admin

# 6. Editing through dynamodb-admin's web UI (the server and table of step 5),
# each change checked with the AWS CLI.
admin_edit() {
  [ -n "$ADMIN_URL" ] || { echo "  dynamodb-admin is not running (see the previous step)"; return 1; }
  mkdir -p "$(dirname "$EDIT_SHOT")"
  cp "$TOOLS/admin_chromium.mjs" "$TOOLS/admin_edit.mjs" "$NPM_DIR/" && (cd "$NPM_DIR" && ADMIN_URL=$ADMIN_URL \
    ENDPOINT="$EP" TABLE=AdminDemo SHOT="$EDIT_SHOT" CHROMIUM="$CHROMIUM" PROFILE_DIR="$WORK/chromium-profile-edit" \
    timeout 180 node admin_edit.mjs)
}
step "dynamodb-admin: create, edit, delete items in headless Chromium (AWS CLI checks, screenshot)" admin_edit

echo
echo "== summary"
printf '  %s\n' "${RESULTS[@]}"
if [ "$FAILED" != 0 ]; then
  echo "e2e: FAILED (server log: last lines)"; tail -20 "$WORK/server.log"; exit 1
fi
echo "e2e: all steps passed"
