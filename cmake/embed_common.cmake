# Helpers shared by the cmake -P scripts that compile files into the binary (embed_app,
# embed_text).

# gpuplan_embed_bytes(PATH OUT_VAR): the bytes of PATH as a C++ initializer list "0x..,0x..," (no
# terminator), so any content, binary or text, compiles without escaping.
function(gpuplan_embed_bytes path out_var)
  file(READ ${path} content HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," content "${content}")
  set(${out_var} "${content}" PARENT_SCOPE)
endfunction()

# gpuplan_write_if_changed(OUTPUT TEXT): writes TEXT to OUTPUT only if it differs, so an unchanged input
# does not rebuild what depends on it.
function(gpuplan_write_if_changed output text)
  file(WRITE ${output}.tmp "${text}")
  file(COPY_FILE ${output}.tmp ${output} ONLY_IF_DIFFERENT)
endfunction()
