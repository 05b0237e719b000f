#!/bin/bash
# The serving chooser's pick (infer point mode, its JSON less the work counters, hashed) on 150 cases:
# 5 models x 5 systems x 3 targets x 2 ISL/OSL. Run before and after a change to the chooser and diff the
# outputs (PYTHONHASHSEED=0 for stable hashes). Usage: PYTHONHASHSEED=0 scripts/chooser_picks.sh [GPUPLAN_BIN]
B=${1:-./build/gpuplan}
for m in deepseek-r1 llama3.1-70b llama3.1-8b qwen3-235b-a22b gpt-oss-120b; do
 for s in hgx-h200 gb300-nvl72 hgx-h100 mi355x b200; do
  for t in 10 50 120; do
   for io in "1024 1024" "8192 1024"; do
    set -- $io
    out=$($B infer --model $m --system $s --isl $1 --osl $2 --tokens-per-user-per-s $t --json 2>&1 | python3 -c "
import json,sys
try:
  d=json.load(sys.stdin)
except Exception as e:
  print('ERR'); sys.exit()
for k in ['evaluated','deployments_considered']: d.pop(k,None)
print(d.get('met'), d.get('gpus'), d.get('concurrency'), d.get('kind'), d.get('plan_text', d.get('plan')), round(d.get('tokens_per_s_per_gpu') or 0,6), hash(json.dumps(d,sort_keys=True)))")
    echo "$m $s $t $1/$2: $out"
   done
  done
 done
done
