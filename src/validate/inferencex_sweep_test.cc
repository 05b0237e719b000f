#include "validate/inferencex_sweep.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace gpuplan {
namespace {

// Three entries of one config: two spans of one deployment (a client list that changed), a second
// deployment of the same widths from a later date, and an MTP twin of the first.
const std::string kSweep = R"(schema: gpuplan.inferencex_sweep/v1
source: SemiAnalysisAI/InferenceX
read_through: {commit: abc, date: 2026-08-21}
entries:
  - {name: a, model: deepseek-r1, gpu: b200, precision: fp8, engine: dynamo+tensorrt-llm, isl: 8192, osl: 1024, mtp: false, mtp_draft_tokens: 0, prefill: {workers: 1, tp: 8, ep: 8, attention_dp: true}, decode: {workers: 4, tp: 8, ep: 8, attention_dp: false}, concurrencies: [4, 8], valid_from: 2026-01-10, valid_until: 2026-02-01, commit: c1}
  - {name: a, model: deepseek-r1, gpu: b200, precision: fp8, engine: dynamo+tensorrt-llm, isl: 8192, osl: 1024, mtp: false, mtp_draft_tokens: 0, prefill: {workers: 1, tp: 8, ep: 8, attention_dp: true}, decode: {workers: 4, tp: 8, ep: 8, attention_dp: false}, concurrencies: [4, 8, 16], valid_from: 2026-02-01, valid_until: null, commit: c2}
  - {name: a, model: deepseek-r1, gpu: b200, precision: fp8, engine: dynamo+tensorrt-llm, isl: 8192, osl: 1024, mtp: false, mtp_draft_tokens: 0, prefill: {workers: 2, tp: 8, ep: 8, attention_dp: true}, decode: {workers: 1, tp: 8, ep: 8, attention_dp: true, max_batch: 64}, concurrencies: [512], valid_from: 2026-03-01, valid_until: null, commit: c3}
  - {name: a-mtp, model: deepseek-r1, gpu: b200, precision: fp8, engine: dynamo+tensorrt-llm, isl: 8192, osl: 1024, mtp: true, mtp_draft_tokens: 3, prefill: {workers: 1, tp: 8, ep: 8, attention_dp: true}, decode: {workers: 2, tp: 8, ep: 8, attention_dp: false}, concurrencies: [16], valid_from: 2026-03-01, valid_until: null, commit: c4}
single_node:
  - {name: s, model: deepseek-r1, gpu: b200, precision: fp4, engine: tensorrt-llm, image: "nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc6.post2", isl: 1024, osl: 1024, mtp: false, tp: 8, ep: 8, attention_dp: false, concurrencies: [4, 8, 16], valid_from: 2026-01-10, valid_until: null, commit: c5}
  - {name: s-mtp, model: deepseek-r1, gpu: b200, precision: fp4, engine: tensorrt-llm, image: "nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc6.post3", isl: 1024, osl: 1024, mtp: true, tp: 8, ep: 8, attention_dp: false, concurrencies: [4, 8], valid_from: 2026-01-15, valid_until: null, commit: c6}
)";

InferenceXSweepQuery query(long long clients, const std::string& date) {
  InferenceXSweepQuery q;
  q.model = "deepseek-r1";
  q.gpu = "b200";
  q.precision = "fp8";
  q.engine = "dynamo+tensorrt-llm";
  q.isl = 8192;
  q.osl = 1024;
  q.concurrency = clients;
  q.prefill_width = 8;
  q.decode_width = 8;
  q.date = date;
  return q;
}

TEST(InferenceXSweep, MatchesTheEntriesInForceOnTheRunsDate) {
  const auto t = parse_inferencex_sweep(kSweep, "inline").disaggregated;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_TRUE(t[1].valid_until.empty());
  EXPECT_EQ(t[2].decode.max_batch, 64);
  // Two spans of one deployment are one reading; the later client list holds 16 only from its date.
  EXPECT_EQ(inferencex_sweep_deployments(t, query(8, "2026-01-20")).size(), 1u);
  EXPECT_EQ(inferencex_sweep_deployments(t, query(8, "2026-02-15")).size(), 1u);
  EXPECT_TRUE(inferencex_sweep_deployments(t, query(16, "2026-01-20")).empty());
  EXPECT_TRUE(inferencex_sweep_deployments(t, query(8, "2026-01-09")).empty());  // before the first span
  EXPECT_EQ(inferencex_sweep_deployments(t, query(16, "2026-02-15")).size(), 1u);
  // From 2026-03-01 16 clients ran with and without MTP: two deployments.
  EXPECT_EQ(inferencex_sweep_deployments(t, query(16, "2026-03-05")).size(), 2u);
  // Another width, GPU or engine matches nothing.
  auto q = query(512, "2026-03-05");
  EXPECT_EQ(inferencex_sweep_deployments(t, q).size(), 1u);
  q.decode_width = 16;
  EXPECT_TRUE(inferencex_sweep_deployments(t, q).empty());
  q = query(512, "2026-03-05");
  q.engine = "dynamo+sglang";
  EXPECT_TRUE(inferencex_sweep_deployments(t, q).empty());
  EXPECT_TRUE(inferencex_sweep_deployments(t, query(8, "")).empty());  // no date: nothing in force
}

TEST(InferenceXSweep, ReadsTheOneDeploymentInTheNotesTerms) {
  const auto t = parse_inferencex_sweep(kSweep, "inline").disaggregated;
  NotesDeployment n;
  const InferenceXSweepEntry* entry = nullptr;
  std::vector<std::string> assumptions;
  ASSERT_FALSE(read_sweep_deployment(t, query(512, "2026-03-05"), "blank", n, entry, assumptions));
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->mtp);
  EXPECT_EQ(n.prefill.workers, 2);
  EXPECT_EQ(n.prefill.tp, 1);  // attention-DP over the worker's 8 GPUs
  EXPECT_EQ(n.prefill.attn_dp, 8);
  EXPECT_EQ(n.prefill.moe_ep, 8);
  EXPECT_EQ(n.prefill.moe_tp, 1);
  EXPECT_EQ(n.decode.bs, 64);
  EXPECT_EQ(n.gpus(), 24);
  ASSERT_EQ(assumptions.size(), 1u);
  EXPECT_NE(assumptions[0].find("entry a in force 2026-03-01 to now"), std::string::npos) << assumptions[0];

  // A deployment without attention-DP keeps TP over the worker; no batch in its recipe's name: no cap.
  ASSERT_FALSE(read_sweep_deployment(t, query(4, "2026-02-15"), "blank", n, entry, assumptions));
  EXPECT_EQ(n.decode.workers, 4);
  EXPECT_EQ(n.decode.tp, 8);
  EXPECT_EQ(n.decode.attn_dp, 1);
  EXPECT_EQ(n.decode.bs, 0);

  // MTP and not, both in force: not guessed, each named.
  const auto why = read_sweep_deployment(t, query(16, "2026-03-05"), "workers blank", n, entry, assumptions);
  EXPECT_EQ(entry, nullptr);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("workers blank; 2 InferenceX sweep entries in force on 2026-03-05"), std::string::npos) << *why;
  EXPECT_NE(why->find("(1 with MTP, 1 without): not guessed"), std::string::npos) << *why;
  const auto none = read_sweep_deployment(t, query(32, "2026-03-05"), "workers blank", n, entry, assumptions);
  ASSERT_TRUE(none);
  EXPECT_NE(none->find("no InferenceX sweep entry in force on 2026-03-05"), std::string::npos) << *none;
}

// A run of a CONFIG_FILE had the clients its body states (srtctl runs the body): the config's conc-list
// can count per decode worker ("c4_ctx1_gen11_...": 44 clients). The bodies are read first; where none in
// force on the run's date lists its clients, the conc-lists (a body the branch changed since the run).
TEST(InferenceXSweep, ClientsFromTheRecipeBodyTheConfigNames) {
  const std::string sweep = R"(schema: gpuplan.inferencex_sweep/v1
source: SemiAnalysisAI/InferenceX
read_through: {commit: abc, date: 2026-08-21}
entries:
  - {name: h, model: deepseek-r1, gpu: h200, precision: fp8, engine: dynamo+tensorrt-llm, isl: 1024, osl: 1024, mtp: true, mtp_draft_tokens: 3, prefill: {workers: 1, tp: 8, ep: 8, attention_dp: false}, decode: {workers: 11, tp: 8, ep: 8, attention_dp: false, max_batch: 128}, concurrencies: [4], config_file: "recipes/trtllm/h200/1k1k/mtp/c4_ctx1_gen11.yaml", valid_from: 2026-01-29, valid_until: null, commit: c1}
  - {name: h, model: deepseek-r1, gpu: h200, precision: fp8, engine: dynamo+tensorrt-llm, isl: 1024, osl: 1024, mtp: false, mtp_draft_tokens: 0, prefill: {workers: 1, tp: 8, ep: 8, attention_dp: false}, decode: {workers: 9, tp: 8, ep: 8, attention_dp: false, max_batch: 256}, concurrencies: [4, 44], config_file: "recipes/trtllm/h200/1k1k/stp/c4_ctx1_gen9.yaml", valid_from: 2026-01-29, valid_until: null, commit: c1}
single_node: []
)";
  const std::string bodies_text = R"(schema: gpuplan.dynamo_decode_recipes/v1
source: s
commit: c
valid_from: 2026-01-28
valid_to: 2026-03-24
recipes:
  - {path: recipes/trtllm/h200/1k1k/mtp/c4_ctx1_gen11.yaml, gpu: h200, precision: fp8, isl: 1024, osl: 1024, prefill_workers: 1, prefill_gpus_per_worker: 8, decode_workers: 11, decode_gpus_per_worker: 8, decode_attention_dp: false, decode_max_batch_size: 128, mtp_draft_tokens: 3, eplb_slots: 0, concurrencies: [44]}
  - {path: recipes/trtllm/h200/1k1k/stp/c4_ctx1_gen9.yaml, gpu: h200, precision: fp8, isl: 1024, osl: 1024, prefill_workers: 1, prefill_gpus_per_worker: 8, decode_workers: 9, decode_gpus_per_worker: 8, decode_attention_dp: false, decode_max_batch_size: 256, mtp_draft_tokens: 0, eplb_slots: 0, concurrencies: [36]}
)";
  const auto t = parse_inferencex_sweep(sweep, "inline").disaggregated;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].config_file, "recipes/trtllm/h200/1k1k/mtp/c4_ctx1_gen11.yaml");
  const DynamoDecodeRecipes table = parse_dynamo_decode_recipes(bodies_text, "inline");
  const RecipeBodies bodies = {&table};
  auto q = query(44, "2026-02-14");
  q.gpu = "h200";
  q.isl = 1024;
  // Without the bodies 44 clients read as the conc-list that lists them; with them, as the body that ran them.
  auto found = inferencex_sweep_deployments(t, q);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0]->mtp);
  found = inferencex_sweep_deployments(t, q, bodies);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0]->mtp);
  ASSERT_TRUE(sweep_entry_body_clients(t[1], "2026-02-14", bodies));
  EXPECT_EQ(*sweep_entry_body_clients(t[1], "2026-02-14", bodies), std::vector<long long>{36});
  q.concurrency = 36;
  found = inferencex_sweep_deployments(t, q, bodies);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0]->mtp);
  // No body in force lists 4 clients: the conc-lists do, both.
  q.concurrency = 4;
  EXPECT_EQ(inferencex_sweep_deployments(t, q, bodies).size(), 2u);
  // After the bodies' dates the branch is another: the conc-lists alone.
  EXPECT_FALSE(sweep_entry_body_clients(t[0], "2026-04-01", bodies));
  q.concurrency = 44;
  q.date = "2026-04-01";
  found = inferencex_sweep_deployments(t, q, bodies);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0]->mtp);
}

// Dynamo's TensorRT-LLM performance sweeps (the December 2025 GB200 launchers) run each listed
// concurrency times the decode workers: 141 listed on 4 decode workers ran 564 clients.
TEST(InferenceXSweep, ClientsPerDecodeWorkerWhereTheLauncherCountsThemSo) {
  const std::string sweep = R"(schema: gpuplan.inferencex_sweep/v1
source: SemiAnalysisAI/InferenceX
read_through: {commit: abc, date: 2026-08-21}
entries:
  - {name: g, model: deepseek-r1, gpu: gb200, precision: fp4, engine: dynamo+tensorrt-llm, isl: 1024, osl: 1024, mtp: false, mtp_draft_tokens: 0, prefill: {workers: 1, tp: 4, ep: 4, attention_dp: false}, decode: {workers: 4, tp: 8, ep: 8, attention_dp: false}, concurrencies: [1, 2, 141], config_file: "", clients_per_decode_worker: true, valid_from: 2025-12-05, valid_until: 2026-01-30, commit: c1}
  - {name: g, model: deepseek-r1, gpu: gb200, precision: fp4, engine: dynamo+tensorrt-llm, isl: 1024, osl: 1024, mtp: true, mtp_draft_tokens: 0, prefill: {workers: 1, tp: 4, ep: 4, attention_dp: false}, decode: {workers: 4, tp: 8, ep: 8, attention_dp: false}, concurrencies: [1, 2, 36], config_file: "", clients_per_decode_worker: true, valid_from: 2025-12-05, valid_until: 2026-01-30, commit: c1}
single_node: []
)";
  const auto t = parse_inferencex_sweep(sweep, "inline").disaggregated;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_TRUE(t[0].clients_per_decode_worker);
  auto q = query(564, "2025-12-19");
  q.gpu = "gb200";
  q.precision = "fp4";
  q.isl = 1024;
  q.prefill_width = 4;
  auto found = inferencex_sweep_deployments(t, q);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0]->mtp);
  q.concurrency = 144;  // 36 a decode worker: the MTP entry
  found = inferencex_sweep_deployments(t, q);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0]->mtp);
  q.concurrency = 141;  // the listed number itself is not a client count these runs had
  EXPECT_TRUE(inferencex_sweep_deployments(t, q).empty());
  q.concurrency = 8;  // 2 a worker on both: MTP and not
  EXPECT_EQ(inferencex_sweep_deployments(t, q).size(), 2u);
  // By the deployment's GPU total instead of the widths (1 x 4 + 4 x 8).
  q.concurrency = 564;
  q.prefill_width = q.decode_width = 0;
  q.total_gpus = 36;
  EXPECT_EQ(inferencex_sweep_deployments(t, q).size(), 1u);
  q.total_gpus = 20;
  EXPECT_TRUE(inferencex_sweep_deployments(t, q).empty());
}

// A Dynamo + SGLang entry whose config writes `tp: 1` with the pools' nodes: the launched script lays each
// worker out over its share of the nodes (3 prefill workers on 6 GB200 nodes: DEP8), and the deployment's
// GPUs count those widths.
TEST(InferenceXSweep, NodeSizedWorkersReadAsTheirGpus) {
  const std::string sweep = R"(schema: gpuplan.inferencex_sweep/v1
source: SemiAnalysisAI/InferenceX
read_through: {commit: abc, date: 2026-08-21}
entries:
  - {name: s, model: deepseek-r1, gpu: gb200, precision: fp8, engine: dynamo+sglang, isl: 1024, osl: 1024, mtp: false, mtp_draft_tokens: 0, prefill: {workers: 3, tp: 1, ep: 1, attention_dp: true, gpus: 8}, decode: {workers: 1, tp: 1, ep: 1, attention_dp: true, gpus: 48}, concurrencies: [1024, 2048], config_file: "", valid_from: 2025-12-05, valid_until: 2026-01-19, commit: c1}
single_node: []
)";
  const auto t = parse_inferencex_sweep(sweep, "inline").disaggregated;
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].prefill.width(), 8);
  EXPECT_EQ(t[0].gpus(), 72);
  auto q = query(1024, "2025-12-05");
  q.gpu = "gb200";
  q.engine = "dynamo+sglang";
  q.isl = 1024;
  q.prefill_width = q.decode_width = 1;  // the dump copies the config's tp 1
  NotesDeployment n;
  const InferenceXSweepEntry* entry = nullptr;
  std::vector<std::string> assumptions;
  ASSERT_FALSE(read_sweep_deployment(t, q, "blank", n, entry, assumptions));
  EXPECT_EQ(n.prefill.workers, 3);
  EXPECT_EQ(n.prefill.attn_dp, 8);
  EXPECT_EQ(n.prefill.moe_ep, 8);
  EXPECT_EQ(n.decode.attn_dp, 48);
  EXPECT_EQ(n.gpus(), 72);
  EXPECT_NE(assumptions.back().find("the nodes' 48 GPUs a worker, the config's tp 1"), std::string::npos)
      << assumptions.back();
  q.prefill_width = q.decode_width = 0;  // or by the total the dump writes
  q.total_gpus = 72;
  EXPECT_EQ(inferencex_sweep_deployments(t, q).size(), 1u);
  const std::string bad = std::string(sweep).replace(sweep.find("gpus: 8"), 7, "gpus: 1");
  EXPECT_THROW(parse_inferencex_sweep(bad, "inline"), InputError);
}

// A single-node run's MTP: the entries in force that ran its GPU, engine, lengths, TP, clients and
// (where the run names it) image agree, or nothing is said.
TEST(InferenceXSweep, SingleNodeMtpWhereTheEntriesAgree) {
  const auto t = parse_inferencex_sweep(kSweep, "inline").single_node;
  ASSERT_EQ(t.size(), 2u);
  InferenceXSingleNodeQuery q;
  q.model = "deepseek-r1";
  q.gpu = "b200";
  q.precision = "fp4";
  q.engine = "tensorrt-llm";
  q.isl = 1024;
  q.osl = 1024;
  q.concurrency = 8;
  q.width = 8;
  q.date = "2026-02-01";
  const InferenceXSingleNodeEntry* first = nullptr;
  EXPECT_EQ(inferencex_sweep_single_node_mtp(t, q, &first), -1);  // both ran 8 clients
  q.image = "nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post3";  // '/' for the config's '#'
  EXPECT_EQ(inferencex_sweep_single_node_mtp(t, q, &first), 1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->name, "s-mtp");
  q.image = "nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post2";
  EXPECT_EQ(inferencex_sweep_single_node_mtp(t, q, &first), 0);
  q.image.clear();
  q.concurrency = 16;  // only the entry without MTP ran 16
  EXPECT_EQ(inferencex_sweep_single_node_mtp(t, q, &first), 0);
  q.date = "2026-01-12";  // before the MTP entry: only the other one
  q.concurrency = 8;
  EXPECT_EQ(inferencex_sweep_single_node_mtp(t, q, &first), 0);
  q.width = 4;
  EXPECT_EQ(inferencex_sweep_single_node_mtp(t, q, &first), -1);
  EXPECT_EQ(first, nullptr);
}

// A run's start names the push whose sweep ran it (InferenceX's run-sweep workflow starts seconds after a
// push that adds perf-changelog entries and runs the config keys they name): of the entries in force that
// match, those of the keys it ran, where any are.
const std::string kPushes = R"(pushes:
  - {commit: p1, time: 2026-03-04T22:38:17Z, keys: [a-mtp]}
  - {commit: p2, time: 2026-03-05T01:17:02Z, keys: [a, s]}
  - {commit: p3, time: 2026-03-05T01:20:00Z, keys: []}
)";

TEST(InferenceXSweep, ThePushWhoseSweepRanTheRun) {
  const auto sweep = parse_inferencex_sweep(kSweep + kPushes, "inline");
  ASSERT_EQ(sweep.pushes.size(), 3u);
  EXPECT_EQ(sweep.pushes[1].keys, (std::vector<std::string>{"a", "s"}));
  EXPECT_EQ(inferencex_push_at(sweep.pushes, "2026-03-04T22:38:20Z"), &sweep.pushes[0]);  // 3 s after p1
  EXPECT_EQ(inferencex_push_at(sweep.pushes, "2026-03-04T22:48:17Z"), &sweep.pushes[0]);  // 10 minutes
  EXPECT_EQ(inferencex_push_at(sweep.pushes, "2026-03-04T22:48:18Z"), nullptr);
  EXPECT_EQ(inferencex_push_at(sweep.pushes, "2026-03-05T01:21:00Z"), &sweep.pushes[2]);  // the last before it
  EXPECT_EQ(inferencex_push_at(sweep.pushes, "2026-03-04T22:38:16Z"), nullptr);           // before any push
  EXPECT_EQ(inferencex_push_at(sweep.pushes, "2026-03-05T00:00:00.000Z"), nullptr);       // a day's stamp
  EXPECT_EQ(inferencex_push_at(sweep.pushes, "2026-03-05"), nullptr);

  // 16 clients on 2026-03-05: entries a and a-mtp both in force; the push names which ran.
  auto q = query(16, "2026-03-05");
  EXPECT_EQ(inferencex_sweep_deployments(sweep.disaggregated, q).size(), 2u);
  q.push = &sweep.pushes[1];
  ASSERT_EQ(inferencex_sweep_deployments(sweep.disaggregated, q).size(), 1u);
  EXPECT_FALSE(inferencex_sweep_deployments(sweep.disaggregated, q)[0]->mtp);
  q.push = &sweep.pushes[0];
  ASSERT_EQ(inferencex_sweep_deployments(sweep.disaggregated, q).size(), 1u);
  EXPECT_TRUE(inferencex_sweep_deployments(sweep.disaggregated, q)[0]->mtp);
  NotesDeployment n;
  const InferenceXSweepEntry* entry = nullptr;
  std::vector<std::string> assumptions;
  ASSERT_FALSE(read_sweep_deployment(sweep.disaggregated, q, "blank", n, entry, assumptions));
  EXPECT_NE(assumptions.back().find("the push of commit p1 at 2026-03-04T22:38:17Z"), std::string::npos)
      << assumptions.back();
  // A push that ran none of them says nothing of the run: the date's entries stand.
  q.push = &sweep.pushes[2];
  EXPECT_EQ(inferencex_sweep_deployments(sweep.disaggregated, q).size(), 2u);

  // Single-node: the MTP twin's key did not run in p2's sweep.
  InferenceXSingleNodeQuery s;
  s.model = "deepseek-r1";
  s.gpu = "b200";
  s.precision = "fp4";
  s.engine = "tensorrt-llm";
  s.isl = s.osl = 1024;
  s.concurrency = 8;
  s.width = 8;
  s.date = "2026-03-05";
  EXPECT_EQ(inferencex_sweep_single_node_mtp(sweep.single_node, s, nullptr), -1);
  s.push = &sweep.pushes[1];
  EXPECT_EQ(inferencex_sweep_single_node_mtp(sweep.single_node, s, nullptr), 0);
}

TEST(InferenceXSweep, BadFieldsNameTheirPath) {
  auto bad = [](const std::string& from, const std::string& to) {
    std::string s = kSweep;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  try {
    parse_inferencex_sweep(bad("workers: 4, tp: 8", "workers: 0, tp: 8"), "f");
    FAIL() << "workers 0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.entries[0].decode.workers"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_inferencex_sweep(bad("precision: fp8", "precision: int8"), "f"), InputError);
  EXPECT_THROW(parse_inferencex_sweep(bad("valid_until: 2026-02-01", "valid_until: 2026-01-01"), "f"), InputError);
  EXPECT_THROW(parse_inferencex_sweep(bad("mtp: false, mtp_draft_tokens: 0", "mtp: false, mtp_draft_tokens: 2"), "f"),
               InputError);
  EXPECT_THROW(parse_inferencex_sweep(bad("commit: c1}", "commit: c1, extra: 1}"), "f"), InputError);
  EXPECT_THROW(parse_inferencex_sweep(bad("engine: tensorrt-llm, image", "engine: trt, image"), "f"), InputError);
  EXPECT_THROW(parse_inferencex_sweep(bad("concurrencies: [4, 8, 16]", "concurrencies: []"), "f"), InputError);
  try {
    parse_inferencex_sweep(kSweep + "pushes:\n  - {commit: p, time: 2026-02-30T01:00:00Z, keys: []}\n", "f");
    FAIL() << "a day that does not exist accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.pushes[0].time"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_inferencex_sweep(kSweep + "pushes:\n  - {commit: p, time: 2026-02-03, keys: []}\n", "f"),
               InputError);
  EXPECT_THROW(parse_inferencex_sweep(kSweep + "pushes:\n  - {commit: p, time: 2026-02-03T01:00:00Z, keys: []}\n"
                                               "  - {commit: q, time: 2026-02-02T01:00:00Z, keys: []}\n",
                                      "f"),
               InputError);  // out of time order
}

// The built-in table loads: every entry has client counts and its span of dates in order.
TEST(InferenceXSweep, BuiltInTable) {
  const auto& t = inferencex_sweep();
  ASSERT_GE(t.disaggregated.size(), 100u);
  ASSERT_GE(t.single_node.size(), 100u);
  for (const auto& e : t.disaggregated) {
    EXPECT_FALSE(e.concurrencies.empty()) << e.name;
    EXPECT_TRUE(e.valid_until.empty() || e.valid_from < e.valid_until) << e.name;
  }
  for (const auto& e : t.single_node) {
    EXPECT_FALSE(e.concurrencies.empty()) << e.name;
    EXPECT_TRUE(e.valid_until.empty() || e.valid_from < e.valid_until) << e.name;
  }
  ASSERT_GE(t.pushes.size(), 100u);
  // The push of 2026-02-11 01:17:02 UTC ran the B200 FP4 Dynamo + SGLang key without its MTP twin.
  const InferenceXPush* p = inferencex_push_at(t.pushes, "2026-02-11T01:17:05Z");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->ran("dsr1-fp4-b200-dynamo-sglang"));
  EXPECT_FALSE(p->ran("dsr1-fp4-b200-dynamo-sglang-mtp"));
}

}  // namespace
}  // namespace gpuplan
