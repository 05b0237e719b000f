#pragma once
// The pre-parsed form of a YAML document: its node tree (null, scalar, sequence, map; every scalar's
// exact text, every node's tag and style, map entries in order; aliases expanded) as compact bytes.
// The build turns each embedded data file into this form (tools/embed_data.cc) after yaml-cpp has
// parsed and checked it, so the binary rebuilds the same YAML::Node tree at startup without running
// yaml-cpp's scanner. Marks (line numbers) are not kept: the build has already reported any error.
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "core/embedded_data.h"

namespace gpuplan {

// The bytes of root's tree.
std::string encode_yaml_tree(const YAML::Node& root);

// The tree that encode_yaml_tree wrote; bytes that it did not write are an InputError naming origin.
YAML::Node decode_yaml_tree(std::string_view bytes, const std::string& origin);

// The document of an embedded data file, from its pre-parsed form: what parse_yaml(f.text, ...) returns.
YAML::Node embedded_yaml(const EmbeddedFile& f);

}  // namespace gpuplan
