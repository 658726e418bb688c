# Writes OUT, a header defining SCALINGLAB_SOURCE_DIGEST: the SHA-256 of the files listed (one per
# line) in LIST, each named relative to ROOT. The task cache keys records by it, so a record is
# reused only by a build of the same sources. OUT is rewritten only when the digest changes.
file(STRINGS "${LIST}" files)
set(text "")
foreach(f IN LISTS files)
  file(SHA256 "${f}" h)
  file(RELATIVE_PATH rel "${ROOT}" "${f}")
  string(APPEND text "${rel} ${h}\n")
endforeach()
string(SHA256 digest "${text}")
set(content "#define SCALINGLAB_SOURCE_DIGEST \"${digest}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
