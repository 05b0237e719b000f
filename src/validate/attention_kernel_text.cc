#include "validate/attention_kernel_text.h"

#include <regex>

namespace gpuplan {

AttentionKernelReading read_attention_kernel(const std::string& text) {
  using std::regex;
  static const regex native(
      R"(flash[- _]?attention[- _]?(v|version )?3|\bfa-?3\b|flash_attn_interface|cudnn (fused )?(flash )?attention|)"
      R"(\bfused attention)",
      regex::icase);
  static const regex fa2(
      R"(flash[- _]?attention([- _]?(v|version )?2)?|\bfa-?2\b|flash[-_]attn|\bsdpa\b|scaled_dot_product_attention)",
      regex::icase);
  AttentionKernelReading r;
  std::smatch m;
  if (std::regex_search(text, m, native)) {
    r.kernel = AttentionKernel::native;
    r.spelling = m.str();
  } else if (std::regex_search(text, m, fa2)) {
    r.kernel = AttentionKernel::flash_attention_2;
    r.spelling = m.str();
  }
  return r;
}

}  // namespace gpuplan
