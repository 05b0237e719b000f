#pragma once
// A command's modes read different options: infer with --requests-per-s reads a handful, compare with
// --claim takes the claim's conditions from the claim, recommend --task train serves nothing. An option
// given to a mode that does not read it is refused (InputError naming it: exit 2), never silently
// ignored. One definition of that check over the options CLI11 recorded as given (RequestBase).
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "api/options.h"

namespace gpuplan::api {

// Why an option does not apply in the mode: the error's message for that option.
using NotReadReason = std::function<std::string(std::string_view option)>;

// The options given (in the order given) that a mode reading only `reads` ignores.
std::vector<std::string> options_not_read(const RequestBase& req, std::initializer_list<std::string_view> reads);

// A mode reads only `reads`: any other option given -> InputError naming the first, its message
// why(option), followed by the other options it ignores ("; also given: --a, --b") when more than one.
void refuse_options_not_read(const RequestBase& req, std::initializer_list<std::string_view> reads,
                             const NotReadReason& why);

// A mode reads every option but `ignored`: any of them given -> the same error.
void refuse_ignored_options(const RequestBase& req, std::initializer_list<std::string_view> ignored,
                            const NotReadReason& why);
// The same with one message for every ignored option.
void refuse_ignored_options(const RequestBase& req, std::initializer_list<std::string_view> ignored,
                            std::string_view why);

}  // namespace gpuplan::api
