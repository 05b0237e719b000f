#pragma once
// The one check every writer makes before it opens a file an option names (calibrate --write and
// --write-bands, export --output-dir, report --out, schedule --write-trace, probe --out): the path
// must not be a directory, and must not be any input of the same run, compared by device and inode
// so that a link, a "..", or another spelling of an input's path is caught too.
#include <string>
#include <utility>
#include <vector>

namespace gpuplan {

// One input of a run: the option that named it and its path ("--dataset", "runs.csv"). Empty paths
// are skipped, so a caller may list optional inputs unconditionally.
using NamedInput = std::pair<std::string, std::string>;

// Throws InputError naming `option` when `path` is empty, a directory, or the same file as one of
// `inputs` (which may be files or directories of files: a file inside an input directory counts).
void check_output_path(const std::string& path, const std::string& option, const std::vector<NamedInput>& inputs);

// The inputs a command line names: every argument ("--opt value", "--opt=value", a positional), but
// the values of the options that name outputs (--out, --write, --write-bands, --write-trace,
// --output-dir), each named by the option before it ("argument" for a positional).
std::vector<NamedInput> inputs_from_args(const std::vector<std::string>& args);

// For an option naming a directory files are written into: throws InputError naming `option` when
// `dir` exists and is not a directory.
void check_output_dir(const std::string& dir, const std::string& option);

}  // namespace gpuplan
