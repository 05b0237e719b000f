#pragma once
// A "key=value,key=value" option's items ("tp=8,pp=2", "layers=32,hidden=4096"), read as the user
// wrote them: every item a key=value, each key once, no empty items.
#include <string>
#include <utility>
#include <vector>

namespace gpuplan {

// The items of `text` in order (none for empty text). An InputError names `option` for an empty item
// or one without '=' (the message shows `example`), and `option`.KEY for a key given twice.
std::vector<std::pair<std::string, std::string>> key_value_items(const std::string& text, const std::string& option,
                                                                 const std::string& example);

}  // namespace gpuplan
