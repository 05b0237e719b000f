// Long-context serving end to end (KV per user, chunked prefill at 128K, prefix caching and KV offload
// to host memory; the same inputs and figures through infer, compare, recommend and size; compare's
// long-context yardstick), the purchase recommend shows and what it ranks by, and --csv: text, JSON, CSV
// and bad input -> exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "run_cli.h"

namespace {

// The prompts' attention in FP8 (TensorRT-LLM's use_fp8_context_fmha): at 100K tokens attention is a
// large share of the prefill, so one request's TTFT falls by a good part of it; the inputs it cannot
// apply to are refused, naming the option.
TEST(LongContextCli, Fp8ContextAttentionShortensALongPrompt) {
  const std::string base = "infer --model llama3.1-70b --system hgx-h100 --tp 8 --isl 100000 --osl 64 --concurrency 1 --json";
  auto b = run_gpuplan(base);
  auto f = run_gpuplan(base + " --context-attention fp8");
  auto same = run_gpuplan(base + " --context-attention bf16");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  ASSERT_EQ(f.exit_code, 0) << f.err;
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_LT(f.json()["ttft_s"].get<double>(), 0.9 * b.json()["ttft_s"].get<double>());
  EXPECT_DOUBLE_EQ(same.json()["ttft_s"].get<double>(), b.json()["ttft_s"].get<double>());
  for (const char* bad : {"infer --model llama3.1-70b --system hgx-h100 --context-attention int8",
                          "infer --model llama3.1-70b --system hgx-a100 --context-attention fp8",
                          "infer --model deepseek-r1 --system hgx-b200 --context-attention fp8"}) {
    auto r = run_gpuplan(bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(has(r.err, "--context-attention")) << r.err;
  }
}

TEST(LongContextCli, KvPerUserAt128K) {
  for (const char* system : {"hgx-h200", "hgx-b200"}) {
    auto r = run_gpuplan(std::string("infer --model llama3.1-70b --system ") + system +
                         " --isl 131072 --osl 1024 --tp 8 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = r.json();
    // 80 layers x 8 KV heads x 128 x (K, V) x 1 byte x 132,096 tokens, over 8 GPUs.
    EXPECT_NEAR(j["memory"]["kv_bytes_per_sequence"].get<double>(), 80.0 * 8 * 128 * 2 * 132096 / 8, 0.02e9) << system;
    EXPECT_GT(j["max_concurrency"].get<long long>(), 8) << system;
    EXPECT_GT(j["ttft_s"].get<double>(), j["prefill_s"].get<double>()) << system;  // under load: waits for the budget
  }
  auto t = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 131072 --osl 1024 --tp 8");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "KV per user")) << t.out;
  EXPECT_TRUE(has(t.out, "chunked prefill: the prompt in 16 chunks of up to 8192 tokens")) << t.out;
}

TEST(LongContextCli, PrefixHitsShortenTtft) {
  const std::string base = "infer --model llama3.1-70b --system hgx-h200 --isl 131072 --osl 1024 --tp 8 --concurrency 8 --json";
  auto none = run_gpuplan(base);
  auto hits = run_gpuplan(base + " --prefix-hit 0.9");
  auto host = run_gpuplan(base + " --prefix-hit 0.9 --kv-offload host");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  ASSERT_EQ(hits.exit_code, 0) << hits.err;
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_LT(hits.json()["ttft_s"].get<double>(), 0.5 * none.json()["ttft_s"].get<double>());
  EXPECT_GT(host.json()["prefix_load_s"].get<double>(), 0.0);
  EXPECT_GE(host.json()["prefill_s"].get<double>(), hits.json()["prefill_s"].get<double>());
  auto text = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 131072 --tp 8 --prefix-hit 0.5");
  EXPECT_TRUE(has(text.out, "prefix-cache hits 50 %")) << text.out;
}

TEST(LongContextCli, BadPrefixAndOffloadOptions) {
  for (const char* args : {"infer --prefix-hit 1", "infer --prefix-hit -0.2", "infer --kv-offload ssd --prefix-hit 0.5",
                           "infer --kv-offload host"}) {
    auto r = run_gpuplan(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(has(r.err, "--prefix-hit") || has(r.err, "--kv-offload")) << args << ": " << r.err;
  }
}

TEST(RecommendPurchaseCli, BuysWholeUnitsWithCapexAndPower) {
  auto r = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100 --system hgx-h200 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = r.json();  // the loop's range must outlive it (a temporary's member would dangle)
  ASSERT_FALSE(doc["ranked"].empty());
  for (const auto& x : doc["ranked"]) {
    if (!x["feasible"].get<bool>()) continue;
    EXPECT_EQ(x["gpus_bought"].get<int>(), x["units"].get<int>() * x["gpus_per_unit"].get<int>());
    EXPECT_GT(x["capex_usd"].get<double>(), 0.0) << x["name"];
    EXPECT_GT(x["it_kw"].get<double>(), 0.0) << x["name"];
  }
  auto t = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100");
  EXPECT_TRUE(has(t.out, "buys ")) << t.out;
  EXPECT_TRUE(has(t.out, "capex ")) << t.out;
}

TEST(RecommendPurchaseCli, SmallestPurchaseMeetsTheDeadline) {
  // One unit fewer than the purchase does not fit the fixed global batch or misses the deadline.
  auto r = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& x = j["ranked"][0];
  ASSERT_TRUE(x["feasible"].get<bool>());
  const int fewer = x["gpus"].get<int>() - 8;
  auto t = run_gpuplan("train --model llama3.1-70b --system hgx-h100 --gpus " + std::to_string(fewer) + " --json");
  ASSERT_TRUE(t.exit_code == 0 || t.exit_code == 3) << t.err;
  if (t.exit_code == 0) {
    const double days = 1.41e12 / t.json()["tokens_per_s"].get<double>() / 86400.0;
    EXPECT_GT(days, 90.0 * 0.9);  // near or past the deadline (train's own search, failures not counted)
  }
}

TEST(RecommendPurchaseCli, NamesTheSmallestPurchaseBesideTheRanking) {
  // Ranked by the job's cost a rack can come first; the smallest purchase that meets the deadline is
  // the feasible priced system with the least capital, named in the text and the JSON.
  const std::string q = "recommend --model llama3.1-8b --task finetune --method lora --system gb200-nvl72 "
                        "--system hgx-h100 --system hgx-h200";
  auto r = run_gpuplan(q + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_TRUE(j["smallest_purchase"].is_object()) << j.dump();
  double least = 1e300;
  for (const auto& x : j["ranked"])
    if (x["feasible"].get<bool>() && x.contains("capex_usd") && x["capex_usd"].get<double>() > 0)
      least = std::min(least, x["capex_usd"].get<double>());
  EXPECT_EQ(j["smallest_purchase"]["capex_usd"].get<double>(), least);
  const auto& chosen = j["ranked"][j["smallest_purchase"]["rank"].get<int>() - 1];
  EXPECT_EQ(chosen["name"], j["smallest_purchase"]["system"]);
  EXPECT_NE(j["smallest_purchase"]["system"], "gb200-nvl72");
  auto t = run_gpuplan(q);
  EXPECT_TRUE(has(t.out, "smallest purchase that meets the deadline: #")) << t.out;
}

TEST(RecommendPurchaseCli, RentAgainstOwnForAOneOffJob) {
  auto r = run_gpuplan("recommend --model llama3.1-8b --task finetune --method lora --system hgx-h100 "
                       "--rent-usd-per-gpu-hour hgx-h100=3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& x = j["ranked"][0];
  ASSERT_TRUE(x["feasible"].get<bool>());
  // Rent is the GPUs the job uses for its wall time at the price given.
  EXPECT_NEAR(x["rent_usd"].get<double>(), x["gpus"].get<double>() * x["wall_s"].get<double>() / 3600.0 * 3.0, 1e-6);
  EXPECT_EQ(x["rent_usd_per_gpu_hour"].get<double>(), 3.0);
  auto t = run_gpuplan("recommend --model llama3.1-8b --task finetune --method lora --system hgx-h100");
  EXPECT_TRUE(has(t.out, "or rents ")) << t.out;
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --task infer --rent-usd-per-gpu-hour hgx-h100=3").exit_code, 2);
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --task train --rent-usd-per-gpu-hour hgx-h100").exit_code, 2);
  // A price for a system the catalog does not have is refused, not left unused.
  for (const char* q : {"recommend --model llama3.1-8b --task train --price-mode rent --rent-usd-per-gpu-hour nosuch=2",
                        "size --model llama3.1-8b --system hgx-h100 --requests-per-s 10 "
                        "--rent-usd-per-gpu-hour nosuch=2"}) {
    const auto u = run_gpuplan(q);
    EXPECT_EQ(u.exit_code, 2) << q << "\n" << u.out;
    EXPECT_TRUE(has(u.err, "--rent-usd-per-gpu-hour: unknown system 'nosuch'")) << q << ": " << u.err;
  }
}

TEST(LongContextCli, CompareLongContextYardstick) {
  const std::string cmd = "compare hgx-h200 hgx-b200 --model llama3.1-70b --long-context 131072 --gpus 64";
  auto r = run_gpuplan(cmd + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  int rows = 0;
  for (const auto& y : j["yardsticks"])
    if (y["group"] == "long context") {
      ++rows;
      EXPECT_FALSE(y["a"].is_null()) << y["key"];
      EXPECT_FALSE(y["b"].is_null()) << y["key"];
    }
  EXPECT_EQ(rows, 5);  // throughput, KV per user, users held, TTFT, training
  const auto& lc = j["models"][0]["long_context"];
  EXPECT_EQ(lc["isl"].get<long long>(), 131072);
  for (const char* side : {"a", "b"}) {
    EXPECT_TRUE(lc[side]["serving"]["met"].get<bool>()) << side;
    EXPECT_TRUE(lc[side]["training"]["found"].get<bool>()) << side;
    EXPECT_GT(lc[side]["training"]["cp"].get<int>(), 1) << side;  // the plan that fits splits the sequence
  }
  // The same question through infer gives the same figures (KV per user, users held, TTFT, throughput).
  auto inf = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 131072 --tokens-per-user 50 --json");
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  const auto ij = inf.json();
  const auto& a = lc["a"]["serving"];
  EXPECT_DOUBLE_EQ(a["point"]["tokens_per_s_per_gpu"].get<double>(), ij["tokens_per_s_per_gpu"].get<double>());
  EXPECT_DOUBLE_EQ(a["point"]["ttft_s"].get<double>(), ij["ttft_s"].get<double>());
  EXPECT_DOUBLE_EQ(a["kv_bytes_per_user_per_gpu"].get<double>(), ij["memory"]["kv_bytes_per_sequence"].get<double>());
  EXPECT_EQ(a["max_concurrency"].get<long long>(), ij["max_concurrency"].get<long long>());
  // Text and CSV carry the rows too.
  auto t = run_gpuplan(cmd);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "[long context]")) << t.out;
  EXPECT_TRUE(has(t.out, "KV per user")) << t.out;
  EXPECT_TRUE(has(t.out, "training at seq 128K")) << t.out;
  auto c = run_gpuplan(cmd + " --csv");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(has(c.out, "long_context_train:llama3.1-70b")) << c.out;
  EXPECT_TRUE(has(c.out, "long_context_users_held:llama3.1-70b")) << c.out;
  // Off by default (the footer says how to ask), and bad lengths name the option.
  auto plain = run_gpuplan("compare hgx-h200 hgx-b200 --model llama3.1-8b --task infer");
  EXPECT_FALSE(has(plain.out, "[long context]"));
  EXPECT_TRUE(has(plain.out, "--long-context 131072")) << plain.out;
  auto bad = run_gpuplan("compare --long-context 100");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--long-context")) << bad.err;
}

TEST(LongContextCli, InferAndCompareAgreeWithPrefixHits) {
  auto inf = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 8192 --tokens-per-user 50 "
                         "--prefix-hit 0.5 --json");
  auto cmp = run_gpuplan("compare hgx-h200 hgx-b200 --model llama3.1-70b --task infer --isl 8192 "
                         "--tokens-per-user 50 --prefix-hit 0.5 --json");
  auto none = run_gpuplan("compare hgx-h200 hgx-b200 --model llama3.1-70b --task infer --isl 8192 "
                          "--tokens-per-user 50 --json");
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  ASSERT_EQ(none.exit_code, 0) << none.err;
  const auto c = cmp.json()["models"][0]["inference"];
  EXPECT_EQ(c["prefix_hit"].get<double>(), 0.5);
  const auto& at = c["at_interactivity_a"];
  ASSERT_TRUE(at["met"].get<bool>());
  EXPECT_DOUBLE_EQ(at["point"]["tokens_per_s_per_gpu"].get<double>(), inf.json()["tokens_per_s_per_gpu"].get<double>());
  EXPECT_DOUBLE_EQ(at["point"]["ttft_s"].get<double>(), inf.json()["ttft_s"].get<double>());
  EXPECT_EQ(at["plan_text"].get<std::string>(), inf.json()["plan"].get<std::string>());
  // The hits change the figure (half of each prompt not recomputed).
  EXPECT_LT(at["point"]["ttft_s"].get<double>(),
            none.json()["models"][0]["inference"]["at_interactivity_a"]["point"]["ttft_s"].get<double>());
}

TEST(LongContextCli, RecommendAndSizeTakePrefixHits) {
  auto inf = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 8192 --tokens-per-user 50 "
                         "--prefix-hit 0.5 --json");
  auto rec = run_gpuplan("recommend --model llama3.1-70b --task serve --system hgx-h200 --isl 8192 "
                         "--prefix-hit 0.5 --json");
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto rj = rec.json();
  EXPECT_EQ(rj["spec"]["task"], "infer");  // serve is infer
  EXPECT_EQ(rj["spec"]["long_context"]["prefix_hit"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(rj["ranked"][0]["ttft_s"].get<double>(), inf.json()["ttft_s"].get<double>());
  const std::string size = "size --model llama3.1-70b --system hgx-h200 --isl 8192 --users 100 --tokens-per-user 50 "
                           "--draws 50 --json";
  auto hits = run_gpuplan(size + " --prefix-hit 0.5");
  auto plain = run_gpuplan(size);
  ASSERT_EQ(hits.exit_code, 0) << hits.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(hits.json()["long_context"]["prefix_hit"].get<double>(), 0.5);
  EXPECT_LT(hits.json()["options"][0]["units"].get<int>(), plain.json()["options"][0]["units"].get<int>());
  // The same refusals everywhere, naming the option.
  for (const char* args : {"compare --task infer --prefix-hit 1", "recommend --model llama3.1-8b --prefix-hit -0.1",
                           "size --model llama3.1-8b --users 10 --prefix-hit 1.5",
                           "compare --task infer --kv-offload host", "recommend --model llama3.1-8b --kv-offload ssd "
                           "--prefix-hit 0.5", "recommend --model llama3.1-8b --task train --prefix-hit 0.5"}) {
    auto r = run_gpuplan(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(has(r.err, "--prefix-hit") || has(r.err, "--kv-offload")) << args << ": " << r.err;
  }
}

// FP8 context attention is a long-prompt input like the prefix hits: the same figure through infer,
// compare, recommend and size, and the same refusals (a model with MLA prompts, a chip without FP8 math,
// a value other than bf16 / fp8, a training task).
TEST(LongContextCli, EveryServingCommandTakesFp8ContextAttention) {
  const std::string fp8 = " --context-attention fp8";
  auto inf = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 32768 --tokens-per-user 20 --json" + fp8);
  auto plain = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 32768 --tokens-per-user 20 --json");
  auto cmp = run_gpuplan("compare hgx-h200 hgx-b200 --model llama3.1-70b --task infer --isl 32768 --tokens-per-user 20 "
                         "--json" + fp8);
  auto rec = run_gpuplan("recommend --model llama3.1-70b --task infer --system hgx-h200 --isl 32768 "
                         "--tokens-per-user 20 --json" + fp8);
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_LT(inf.json()["ttft_s"].get<double>(), plain.json()["ttft_s"].get<double>());
  const auto ci = cmp.json()["models"][0]["inference"];
  EXPECT_EQ(ci["context_attention"], "fp8");
  const auto& at = ci["at_interactivity_a"];
  ASSERT_TRUE(at["met"].get<bool>());
  EXPECT_DOUBLE_EQ(at["point"]["ttft_s"].get<double>(), inf.json()["ttft_s"].get<double>());
  EXPECT_DOUBLE_EQ(rec.json()["ranked"][0]["ttft_s"].get<double>(), inf.json()["ttft_s"].get<double>());
  EXPECT_EQ(rec.json()["spec"]["long_context"]["context_attention"], "fp8");
  auto size = run_gpuplan("size --model llama3.1-70b --system hgx-h200,hgx-a100 --isl 32768 --users 20 "
                          "--tokens-per-user 20 --draws 50 --json" + fp8);
  ASSERT_EQ(size.exit_code, 0) << size.err;
  EXPECT_EQ(size.json()["long_context"]["context_attention"], "fp8");
  bool a100_refused = false;
  const auto options = size.json()["options"];
  for (const auto& o : options)
    if (o["system"] == "hgx-a100") a100_refused = has(o["why_not"].get<std::string>(), "--context-attention fp8");
  EXPECT_TRUE(a100_refused) << size.out;
  for (const char* args : {"compare --task infer --context-attention fp8", "size --model deepseek-r1 --users 10 "
                           "--context-attention fp8", "recommend --model llama3.1-8b --context-attention int8",
                           "recommend --model llama3.1-8b --task train --context-attention fp8",
                           "compare hgx-a100 hgx-h100 --model llama3.1-8b --task infer --context-attention fp8"}) {
    auto r = run_gpuplan(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(has(r.err, "--context-attention")) << args << ": " << r.err;
  }
}

TEST(RecommendPurchaseCli, OneOffJobRankedByItsCost) {
  const std::string cmd = "recommend --model llama3.1-8b --task finetune --method lora --system hgx-h100 "
                          "--system hgx-h200 --system hgx-b200 --rent-usd-per-gpu-hour hgx-h100=2 "
                          "--rent-usd-per-gpu-hour hgx-h200=3 --rent-usd-per-gpu-hour hgx-b200=40";
  for (const char* mode : {"own", "rent"}) {
    auto r = run_gpuplan(cmd + " --price-mode " + mode + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = r.json();
    const bool rent = std::string(mode) == "rent";
    EXPECT_EQ(j["rank_basis"], rent ? "job_usd_rented" : "job_usd_owned");
    EXPECT_TRUE(has(j["rank_basis_text"].get<std::string>(), "job's cost"));
    double last = 0;
    for (const auto& x : j["ranked"]) {
      ASSERT_TRUE(x["feasible"].get<bool>()) << x["name"];
      const double job = x["job_usd"].get<double>();
      EXPECT_DOUBLE_EQ(job, x[rent ? "rent_usd" : "usd"].get<double>()) << x["name"];
      EXPECT_GE(job, last) << x["name"];  // cheapest job first
      last = job;
    }
    if (rent) {
      EXPECT_NE(j["ranked"][0]["name"], "hgx-b200");  // the dearest rental is not first
    }
  }
  auto t = run_gpuplan(cmd);
  EXPECT_TRUE(has(t.out, "ranked by the job's cost owned")) << t.out;
  EXPECT_TRUE(has(t.out, "owned,")) << t.out;
  auto serve = run_gpuplan("recommend --model llama3.1-8b --task infer --system hgx-h100 --json");
  EXPECT_EQ(serve.json()["rank_basis"], "usd_per_hour");
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --task infer --price-mode rent").exit_code, 2);
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --task train --price-mode lease").exit_code, 2);
}

TEST(RecommendPurchaseCli, HeaderSaysWhatTheBatchIsAndWhereItComesFrom) {
  auto ft = run_gpuplan("recommend --model llama3.1-8b --task finetune --method lora --system hgx-h100");
  ASSERT_EQ(ft.exit_code, 0) << ft.err;
  EXPECT_FALSE(has(ft.out, "the model's default")) << ft.out;
  EXPECT_TRUE(has(ft.out, "global batch 256 (1.05M tokens)")) << ft.out;
  EXPECT_TRUE(has(ft.out, "fine-tuning default: 2^20 = 1,048,576 tokens a step")) << ft.out;
  auto stated = run_gpuplan("recommend --model llama3.1-8b --task finetune --method lora --system hgx-h100 "
                            "--global-batch 64 --json");
  EXPECT_EQ(stated.json()["spec"]["global_batch_basis"], "stated (--global-batch)");
  auto tr = run_gpuplan("recommend --model llama3.1-8b --task train --system hgx-h100 --json");
  EXPECT_TRUE(has(tr.json()["spec"]["global_batch_basis"].get<std::string>(), "pre-training schedules"));
}

TEST(CsvCli, RecommendTableAsCsv) {
  auto r = run_gpuplan("recommend --model llama3.1-8b --task infer --system hgx-h100 --system hgx-h200 --csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, row;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("rank,name,", 0), 0u) << header;
  EXPECT_TRUE(has(header, "capex_usd")) << header;
  EXPECT_TRUE(has(header, "usd_per_million_tokens")) << header;
  int rows = 0;
  while (std::getline(lines, row)) ++rows;
  EXPECT_EQ(rows, 2);
}

TEST(CsvCli, RefusedWithJsonOrWithoutATable) {
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --csv --json").exit_code, 2);
  auto r = run_gpuplan("memory --model llama3.1-8b --csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--csv")) << r.err;
}

}  // namespace
