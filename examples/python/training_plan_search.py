"""The fastest training plans for Llama 3.1 70B on 64 H100s at global batch 128, sequence 8192, FP8: the
search's top plans as a DataFrame (CSV), then the winner evaluated on its own and priced.
    python3 examples/python/training_plan_search.py [OUTPUT_DIR]"""
import os
import sys

import gpuplan

out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
workload = dict(model="llama3.1-70b", system="hgx-h100", gpus=64, global_batch=128, seq=8192, precision="fp8")

result = gpuplan.search(**workload)
plans = gpuplan.to_frame(result)
columns = ["rank", "plan.text", "step_time_s", "tokens_per_s_per_gpu", "mfu_6n", "memory.total_bytes"]
print(plans[columns].to_string(index=False))
csv = os.path.join(out_dir, "training_plans.csv")
plans.to_csv(csv, index=False)

best = result["top"][0]["plan"]["text"]
step = gpuplan.train(plan=best, **workload)
assert abs(step["step_time_s"] - result["top"][0]["step_time_s"]) <= 1e-9 * step["step_time_s"]
print("best plan {}: {:.2f} s per step, MFU {:.1%}".format(best, step["step_time_s"], step["mfu"]["6n"]))
print("plans:", csv)
