# Relocatable tools: link against the static LLVM/MLIR archives only.
#
# Debian exports every MLIR archive with a link dependency on the shared
# libLLVM ("LLVM") and LLVMSupport with shared z3/zstd. Rewrite the imported
# targets so that they name the static LLVM archives, drop z3 (only used by
# an optional solver nobody here calls) and take zlib/zstd as archives.
# lld resolves archives in any order, so the whole set can be listed at once;
# only the members actually referenced end up in the binary.

set(LLVM_LINK_LLVM_DYLIB OFF)

find_library(EGG_LIBZ_STATIC NAMES libz.a REQUIRED)
find_library(EGG_LIBZSTD_STATIC NAMES libzstd.a REQUIRED)

set(EGG_LLVM_STATIC_LIBS)
foreach(lib ${LLVM_AVAILABLE_LIBS})
  # Benchmarking and line-editing libraries pull in system libraries
  # (libpfm, libedit) that no EGG tool needs.
  if(lib MATCHES "^LLVM." AND TARGET ${lib}
     AND NOT lib MATCHES "^LLVM(Exegesis|LineEditor)")
    get_target_property(_type ${lib} TYPE)
    if(_type STREQUAL "STATIC_LIBRARY")
      list(APPEND EGG_LLVM_STATIC_LIBS ${lib})
    endif()
  endif()
endforeach()

get_directory_property(_imported IMPORTED_TARGETS)
foreach(target ${_imported})
  get_target_property(_libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT _libs)
    continue()
  endif()
  set(_new)
  foreach(dep ${_libs})
    if(dep STREQUAL "LLVM")
      list(APPEND _new ${EGG_LLVM_STATIC_LIBS})
    elseif(dep MATCHES "libz3\\.so|Polly|^pfm$")
      # dropped: see above
    elseif(dep STREQUAL "ZLIB::ZLIB")
      list(APPEND _new ${EGG_LIBZ_STATIC})
    elseif(dep MATCHES "zstd::libzstd")
      list(APPEND _new ${EGG_LIBZSTD_STATIC})
    elseif(dep MATCHES "::" AND NOT TARGET ${dep})
      # An optional system library (LibEdit for the line editor) that the
      # tools never reach; Debian's export names it without defining it.
    else()
      list(APPEND _new ${dep})
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${_new}")
endforeach()

# Carry the C++ runtime; keep only the shared system libraries really used.
string(APPEND CMAKE_EXE_LINKER_FLAGS
  " -static-libstdc++ -static-libgcc -Wl,--as-needed -Wl,--gc-sections")
message(STATUS "EGG: linking the tools against static LLVM/MLIR archives")
