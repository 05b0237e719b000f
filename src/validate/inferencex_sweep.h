#pragma once
// InferenceX's sweep entries through the history of its NVIDIA master config
// (data/serving/inferencex_sweep.yaml, written by scripts/gen_inferencex_sweep.py): each entry's
// deployment, the client counts it ran and the dates it stood in the file. A dump of InferenceX's runs
// (AIConfigurator's CSV exports) that states each pool's width and the clients but not the worker counts
// is read with the one deployment the sweep in force on the run's date lists for them, and a single-node
// run's MTP, which the dump does not record, with the sweep's where its entries agree. See
// docs/validation.md ("Disaggregated rows without worker counts", "Speculative decoding AIConfigurator's
// exports do not record").
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "validate/dynamo_decode_recipes.h"
#include "validate/notes_deployment.h"

namespace gpuplan {

struct InferenceXSweepPool {
  int workers = 1;
  int tp = 1;  // the worker's width (GPUs)
  int ep = 1;
  bool attention_dp = false;
  long long max_batch = 0;  // decode: sequences per attention rank its recipe's name states (0: not stated)
  // The worker's GPUs where the config's tp is a placeholder (a Dynamo + SGLang entry of `tp: 1` with the
  // pool's nodes: the launched script lays the worker out over them, EP over all); 0: tp is the width.
  int gpus = 0;
  int width() const { return gpus > 0 ? gpus : tp; }
  int expert_parallel() const { return gpus > 0 ? gpus : ep; }
  bool operator==(const InferenceXSweepPool&) const = default;
};

struct InferenceXSweepEntry {
  std::string name;       // the config's key ("dsr1-fp4-gb200-dynamo-trt")
  std::string model;      // catalog model name
  std::string gpu;        // InferenceX's runner ("gb200", "b200", "h100")
  std::string precision;  // "fp4" or "fp8"
  std::string engine;     // "dynamo+tensorrt-llm" or "dynamo+sglang"
  long long isl = 0, osl = 0;
  bool mtp = false;
  int mtp_draft_tokens = 0;  // 0: not stated
  InferenceXSweepPool prefill, decode;
  std::vector<long long> concurrencies;  // the config's conc-list
  // The srt-slurm recipe its CONFIG_FILE names (empty: none or several). srtctl runs the body, so a
  // run's clients are the body's benchmark.concurrencies, which need not be the conc-list's (whose
  // numbers can be per decode worker: "c4_ctx1_gen11_..." ran 44 clients).
  std::string config_file;
  // The launcher ran Dynamo's TensorRT-LLM performance sweeps, whose bench.sh runs each listed
  // concurrency times the decode workers: the clients are conc-list x decode.workers.
  bool clients_per_decode_worker = false;
  std::string valid_from, valid_until;  // YYYY-MM-DD; valid_until exclusive, empty: still in force
  std::string commit;
  int gpus() const { return prefill.workers * prefill.width() + decode.workers * decode.width(); }
  // The same deployment (pools, MTP and drafts): two entries that agree on it are one reading of a run.
  bool same_deployment(const InferenceXSweepEntry& o) const {
    return prefill == o.prefill && decode == o.decode && mtp == o.mtp && mtp_draft_tokens == o.mtp_draft_tokens;
  }
};

// A single-node entry: one worker of `tp` GPUs.
struct InferenceXSingleNodeEntry {
  std::string name, model, gpu, precision;
  std::string engine;  // "tensorrt-llm", "sglang" or "vllm"
  std::string image;   // the container image the config names
  long long isl = 0, osl = 0;
  bool mtp = false;
  int tp = 1, ep = 1;
  bool attention_dp = false;
  std::vector<long long> concurrencies;
  std::string valid_from, valid_until, commit;
};

// A sweep InferenceX ran: the push of a commit that added perf-changelog.yaml entries starts its run-sweep
// workflow, which runs every entry of the config keys those entries name.
struct InferenceXPush {
  std::string commit;
  std::string time;               // the commit's time, UTC ("2026-02-11T01:17:02Z")
  long long time_s = 0;           // the same, seconds since 1970
  std::vector<std::string> keys;  // the config keys it ran that the sweep's entries have (empty: none)
  bool ran(const std::string& name) const { return std::find(keys.begin(), keys.end(), name) != keys.end(); }
};

struct InferenceXSweep {
  std::vector<InferenceXSweepEntry> disaggregated;      // the file's `entries`
  std::vector<InferenceXSingleNodeEntry> single_node;  // its `single_node`
  std::vector<InferenceXPush> pushes;                   // its `pushes`, in time order
};

// The push whose sweep a run stamped `time` ("2026-02-11T01:17:05Z", the run's start: a workflow run
// starts seconds after its push) belongs to: the last push at or before it, within 10 minutes; nullptr
// where none is, or `time` states no time of day (a date, or midnight exactly: a day's stamp).
const InferenceXPush* inferencex_push_at(const std::vector<InferenceXPush>& pushes, const std::string& time);

// ", of the config keys the sweep of the push of commit C at T (the run's start) ran" where `push` ran the
// entry `name`; else empty: what a reading says of the push.
std::string inferencex_push_words(const InferenceXPush* push, const std::string& name);

// Parses a gpuplan.inferencex_sweep/v1 document; a missing or out-of-range field is an InputError naming it.
InferenceXSweep parse_inferencex_sweep(const std::string& text, const std::string& origin);

// The built-in table.
const InferenceXSweep& inferencex_sweep();

// What every lookup asks of an entry: the run's model, GPU and weights as the sweep names them, its
// engine, lengths and clients, and its date (YYYY-MM-DD): the entry must have run them and stood in the
// config that day.
struct InferenceXRunQuery {
  std::string model, gpu, precision, engine;
  long long isl = 0, osl = 0, concurrency = 0;
  std::string date;
  // The push whose sweep ran it, where its time names one (inferencex_push_at): of the entries that match,
  // those of the keys it ran, when any are.
  const InferenceXPush* push = nullptr;
};

// What a disaggregated run states of its deployment: the pools' widths (GPUs a worker), not their worker
// counts.
struct InferenceXSweepQuery : InferenceXRunQuery {
  int prefill_width = 0, decode_width = 0;
  // Set instead of the widths: the deployment's GPUs (both pools, every worker), for a dump that writes
  // that total as each pool's tp.
  int total_gpus = 0;
};

// The recipe tables whose bodies give an entry's clients (data/recipes/dynamo_*_decode.yaml).
using RecipeBodies = std::vector<const DynamoDecodeRecipes*>;
const RecipeBodies& builtin_recipe_bodies();

// The clients a run of `e` on `date` had where one of `bodies` in force on that date holds the body of
// its CONFIG_FILE (every variant of it: "path:zip_override_x[i]"); nullopt where none does.
std::optional<std::vector<long long>> sweep_entry_body_clients(const InferenceXSweepEntry& e, const std::string& date,
                                                               const RecipeBodies& bodies);

// The entries in force on the query's date whose model, GPU, precision, engine, lengths, pool widths
// and client counts are the query's, one per distinct deployment (the first of each in file order). The
// clients are the conc-list (times the decode workers where the entry counts them per worker), read from
// the CONFIG_FILE bodies `bodies` hold for the date (what srtctl ran) and, where
// no body in force lists the query's, from the conc-lists: a body is one state of a branch that changed
// within the dates it stood for (a run of 2026-02-07 had the conc-list's 12 clients where the body of
// 2026-03-03 states 10).
std::vector<const InferenceXSweepEntry*> inferencex_sweep_deployments(const std::vector<InferenceXSweepEntry>& table,
                                                                      const InferenceXSweepQuery& q,
                                                                      const RecipeBodies& bodies = {});

// A run whose notes leave the worker counts blank (`counts_blank`: what parse_notes_deployment said),
// read with the one deployment of `table` the query finds: `n` gets both pools in the notes' terms
// (attention-DP over the worker's width, moe_ep = the entry's EP; the decode bs its recipe's name states,
// else 0: no cap stated) and `entry` the entry (its MTP for the caller to apply); the reading is added
// to `assumptions`. Returns the reason the row stays unread: no entry, or entries with different
// deployments (not guessed).
std::optional<std::string> read_sweep_deployment(const std::vector<InferenceXSweepEntry>& table,
                                                 const InferenceXSweepQuery& q, const std::string& counts_blank,
                                                 NotesDeployment& n, const InferenceXSweepEntry*& entry,
                                                 std::vector<std::string>& assumptions,
                                                 const RecipeBodies& bodies = {});

// What a single-node run states: its worker's width (GPUs) and, where it names it, its container image.
struct InferenceXSingleNodeQuery : InferenceXRunQuery {
  int width = 0;
  std::string image;  // empty: not stated (any); compared with '#' read as '/' ("nvcr.io#nvidia/...")
};

// Whether the single-node entries in force on the query's date that ran it (model, GPU, precision,
// engine, lengths, TP = the width, the clients, the image where stated) ran MTP: 1 all of them, 0 none
// of them, -1 no entry or both kinds. `first` is set to the first match (nullptr when none).
int inferencex_sweep_single_node_mtp(const std::vector<InferenceXSingleNodeEntry>& table,
                                     const InferenceXSingleNodeQuery& q, const InferenceXSingleNodeEntry** first);

}  // namespace gpuplan
