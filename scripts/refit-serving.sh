#!/usr/bin/env bash
# Refits the serving parameters that depend on one another, in order, to their fixed point
# (docs/inference-model.md): cdna4's MLA decode rate on the InferenceX TPOTs, every generation's
# prefill rates and block-scaled FP8 shares (TTFT at 1-8 clients and the opening waves), then the
# engines' front ends, MTP acceptance and SGLang's MTP host work; the catalog is embedded in the
# binary, so gpuplan is rebuilt after each write. Repeats until a round leaves the data files as
# they were (at most ROUNDS, default 4). Run after any change to the serving physics, then
# build everything (the Python module and the tests embed the catalog too) and run
# `ctest -R "CatalogValues|Golden"`. The fits start from the catalog's values, and the chain has
# more than one fixed point (docs/inference-model.md, "Parameters", the refit chain: from the committed
# catalog it reaches, in one round, one that breaks PrefillRate.GoldenLowLoadTtft), so compare the
# validation figures before writing a new one.
# Usage: scripts/refit-serving.sh [ROUNDS]   (SHARED_DATA overrides ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-4}
# The generations whose MLA decode rate is kept (docs/inference-model.md, "MLA decode attention rate").
mla_gens=cdna4,blackwell_ultra
data=${SHARED_DATA:-../shared/data}/benchmarks/inferencex-deepseek-r1.csv
[ -f "$data" ] || { echo "refit-serving: $data not found (set SHARED_DATA)" >&2; exit 2; }
files=(data/catalog/efficiency.yaml data/catalog/serving_engines.yaml)
build() { cmake --build build --target gpuplan >/dev/null; }
build
for ((r = 1; r <= rounds; r++)); do
  before=$(cat "${files[@]}" | grep -v fitted_date | sha1sum)
  ./build/gpuplan calibrate --inference --params infer_mla_decode_eff --generation "$mla_gens" --dataset "$data" \
    --write data/catalog/efficiency.yaml >/dev/null 2>&1
  build
  ./build/gpuplan calibrate --inference --prefill --params infer_mla_prefill_eff,infer_fp8_block_share,infer_fp8_block_triton_share \
    --dataset "$data" --write data/catalog/efficiency.yaml >/dev/null 2>&1
  build
  ./build/gpuplan calibrate --engines --dataset "$data" --write data/catalog/serving_engines.yaml >/dev/null 2>&1
  build
  after=$(cat "${files[@]}" | grep -v fitted_date | sha1sum)
  echo "refit-serving: round $r $([ "$before" = "$after" ] && echo "left the files unchanged" || echo "changed them")"
  [ "$before" = "$after" ] && exit 0
done
echo "refit-serving: no fixed point after $rounds rounds (check ctest -R CatalogValues)" >&2
exit 1
