#include "core/yaml_tree.h"

#include <fmt/format.h>

#include <cstdint>

#include "core/error.h"

namespace gpuplan {

namespace {

// Layout: a version byte, then the root node. A node is one header byte (bits 0-1 the kind, 2-3 the
// style, 4-5 the tag: none, "?", "!" or written out as a string), the tag's string if written out, then
// a scalar's string, or a sequence's count and its items, or a map's count and its key, value pairs.
// Strings and counts are their length or value as LEB128 (7 bits a byte, low first).
constexpr unsigned char kVersion = 1;
enum Kind : unsigned char { kNull = 0, kScalar = 1, kSequence = 2, kMap = 3 };
enum TagKind : unsigned char { kNoTag = 0, kPlainTag = 1, kQuotedTag = 2, kOtherTag = 3 };

unsigned char style_bits(YAML::EmitterStyle::value s) {
  switch (s) {
    case YAML::EmitterStyle::Block: return 1;
    case YAML::EmitterStyle::Flow: return 2;
    default: return 0;
  }
}

YAML::EmitterStyle::value style_of(unsigned bits) {
  return bits == 1 ? YAML::EmitterStyle::Block : bits == 2 ? YAML::EmitterStyle::Flow : YAML::EmitterStyle::Default;
}

void put_count(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_string(std::string& out, const std::string& s) {
  put_count(out, s.size());
  out += s;
}

void encode(const YAML::Node& n, std::string& out) {
  unsigned char kind = kNull;
  switch (n.Type()) {
    case YAML::NodeType::Scalar: kind = kScalar; break;
    case YAML::NodeType::Sequence: kind = kSequence; break;
    case YAML::NodeType::Map: kind = kMap; break;
    default: kind = kNull; break;  // Null, and Undefined (a key that is absent) read back as null
  }
  const std::string& tag = n.Tag();
  const unsigned char tag_kind = tag.empty() ? kNoTag : tag == "?" ? kPlainTag : tag == "!" ? kQuotedTag : kOtherTag;
  out.push_back(static_cast<char>(kind | style_bits(n.Style()) << 2 | tag_kind << 4));
  if (tag_kind == kOtherTag) put_string(out, tag);
  if (kind == kScalar) {
    put_string(out, n.Scalar());
  } else if (kind == kSequence) {
    put_count(out, n.size());
    for (const auto& item : n) encode(item, out);
  } else if (kind == kMap) {
    put_count(out, n.size());
    for (const auto& kv : n) {
      encode(kv.first, out);
      encode(kv.second, out);
    }
  }
}

// Rebuilds the tree top-down: each collection joins its parent before its items are read, so every new
// node joins the root's memory once (bottom-up, each subtree's nodes would be merged again at every level).
class Decoder {
 public:
  Decoder(std::string_view bytes, const std::string& origin) : bytes_(bytes), origin_(origin) {}

  YAML::Node root() {
    if (byte() != kVersion) fail("unknown version");
    const unsigned char h = byte();
    YAML::Node n = (h == kNull) ? YAML::Node() : shell(h);
    fill(n, h);
    if (pos_ != bytes_.size()) fail("bytes after the root node");
    return n;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw InputError(origin_, fmt::format("corrupt pre-parsed YAML at byte {}: {}", pos_, what));
  }

  unsigned char byte() {
    if (pos_ >= bytes_.size()) fail("truncated");
    return static_cast<unsigned char>(bytes_[pos_++]);
  }

  uint64_t count() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 63) fail("count too long");
      const unsigned char b = byte();
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }

  std::string string() {
    const uint64_t n = count();
    if (n > bytes_.size() - pos_) fail("truncated string");
    std::string s(bytes_.substr(pos_, n));
    pos_ += n;
    return s;
  }

  // A node of header h with its tag, style and (for a scalar) its text; a collection's items come
  // from fill().
  YAML::Node shell(unsigned char h) {
    const unsigned kind = h & 3u, style = (h >> 2) & 3u, tag = (h >> 4) & 3u;
    if ((h >> 6) != 0 || style == 3) fail("bad node header");
    std::string tag_text = tag == kPlainTag ? "?" : tag == kQuotedTag ? "!" : "";
    if (tag == kOtherTag) tag_text = string();
    YAML::Node n;
    switch (kind) {
      case kScalar: n = YAML::Node(string()); break;
      case kSequence: n = YAML::Node(YAML::NodeType::Sequence); break;
      case kMap: n = YAML::Node(YAML::NodeType::Map); break;
      default: n = YAML::Node(YAML::NodeType::Null); break;
    }
    if (!tag_text.empty()) n.SetTag(tag_text);
    if (style != 0) n.SetStyle(style_of(style));
    return n;
  }

  void fill(YAML::Node& n, unsigned char h) {
    const unsigned kind = h & 3u;
    if (kind != kSequence && kind != kMap) return;
    const uint64_t items = count();
    if (items > bytes_.size() - pos_) fail("count beyond the data");
    if (++depth_ > kMaxDepth) fail("nested too deep");
    for (uint64_t i = 0; i < items; ++i) {
      if (kind == kSequence) {
        const unsigned char ih = byte();
        YAML::Node item = shell(ih);
        n.push_back(item);
        fill(item, ih);
      } else {
        const unsigned char kh = byte();
        YAML::Node key = shell(kh);
        fill(key, kh);
        const unsigned char vh = byte();
        YAML::Node value = shell(vh);
        n.force_insert(key, value);
        fill(value, vh);
      }
    }
    --depth_;
  }

  static constexpr int kMaxDepth = 256;
  std::string_view bytes_;
  const std::string& origin_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::string encode_yaml_tree(const YAML::Node& root) {
  std::string out(1, static_cast<char>(kVersion));
  encode(root, out);
  return out;
}

YAML::Node decode_yaml_tree(std::string_view bytes, const std::string& origin) {
  return Decoder(bytes, origin).root();
}

YAML::Node embedded_yaml(const EmbeddedFile& f) { return decode_yaml_tree(f.tree, std::string(f.path)); }

}  // namespace gpuplan
