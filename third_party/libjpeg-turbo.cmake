# libjpeg-turbo for libfeed (included by the top-level CMakeLists.txt), and the
# gate on libfeed's own Huffman decoder (docs/design.md, "libjpeg-turbo: pinned").
#
# Defines:
#   feed_libjpeg    the libjpeg API, with jpegint.h: feed-worker and the decoders
#   feed_turbojpeg  TurboJPEG: the programs and tests that write or compare JPEGs
#   FEED_OWN_ENTROPY  1: libfeed's Huffman decoder (src/decode/jpeg_huff.c,
#                   jpeg_phuff.c) is installed by decode/jpeg.c; 0: compiled out
#                   there (the two files are still built, never called), libjpeg's
#                   own decodes every scan. Every object gets it (src/decode/jpeg_abi.h).
#
# FEED_SYSTEM_LIBJPEG OFF (the default): third_party/libjpeg-turbo (3.1.4.1),
# built here as static PIC libraries with SIMD (ExternalProject: its flags
# stay apart from libfeed's, sanitizers included), with its own jpegint.h and
# generated jconfig.h. Every process that decodes or writes a JPEG then has
# this one libjpeg linked in; libfeed.so has none (ctest layers).
# ON: pkg-config's libjpeg and libturbojpeg, as a distribution packages them.
option(FEED_SYSTEM_LIBJPEG "Link the system's libjpeg-turbo (pkg-config) instead of third_party/libjpeg-turbo" OFF)

# The libjpeg-turbo versions libfeed's Huffman decoder is checked against
# (LIBJPEG_TURBO_VERSION_NUMBER ranges, as src/decode/jpeg_abi.h repeats):
# 2.1.x and 3.1.x; bit for bit by the test suite on 2.1.5 (Debian 12's, CI's
# FEED_SYSTEM_LIBJPEG=ON build) and 3.1.4.1 (third_party/libjpeg-turbo).
set(FEED_LIBJPEG_CHECKED 2001000 2001999 3001000 3001999)
set(FEED_LIBJPEG_TESTED "2.1.5 and 3.1.4.1")

# _feed_libjpeg_gate(VERSION_NUMBER JPEGLIB_H JPEGINT_H LIB_IS_3X WHERE):
# sets FEED_OWN_ENTROPY in the caller's scope. The decoder plugs into
# jpegint.h's structs, which upstream does not install and changed in 3.0, so
# it is compiled in only when the jpegint.h the compiler finds is the one of
# the jpeglib.h and the library found, and that version was checked.
function(_feed_libjpeg_gate num jpeglib jpegint lib3 where)
  math(EXPR _maj "${num} / 1000000")
  math(EXPR _min "(${num} / 1000) % 1000")
  math(EXPR _pat "${num} % 1000")
  set(_ver "${_maj}.${_min}.${_pat}")
  set(_why "")
  get_filename_component(_d1 "${jpeglib}" DIRECTORY)
  get_filename_component(_d2 "${jpegint}" DIRECTORY)
  file(STRINGS "${jpegint}" _mcus REGEX "decode_mcus")
  if(NOT _d1 STREQUAL _d2)
    list(APPEND _why "jpegint.h (${jpegint}) is not beside jpeglib.h (${jpeglib}): libjpeg-turbo does not install jpegint.h, so this one may belong to another version")
  endif()
  if(_mcus AND num LESS 3000000)
    list(APPEND _why "jpegint.h has 3.x's decode_mcus but jpeglib.h says ${_ver}")
  elseif(NOT _mcus AND NOT num LESS 3000000)
    list(APPEND _why "jpeglib.h says ${_ver} but jpegint.h has no decode_mcus (a 2.x jpegint.h)")
  endif()
  if(lib3 AND num LESS 3000000)
    list(APPEND _why "jpeglib.h says ${_ver} but the library linked is 3.x (it has jpeg12_read_scanlines)")
  elseif(NOT lib3 AND NOT num LESS 3000000)
    list(APPEND _why "jpeglib.h says ${_ver} but the library linked is older than 3.0 (no jpeg12_read_scanlines)")
  endif()
  set(_ok 0)
  set(_ranges ${FEED_LIBJPEG_CHECKED})
  while(_ranges)
    list(POP_FRONT _ranges _lo _hi)
    if(NOT num LESS _lo AND NOT num GREATER _hi)
      set(_ok 1)
    endif()
  endwhile()
  if(NOT _ok)
    list(APPEND _why "libjpeg-turbo ${_ver} is not a version libfeed's Huffman decoder was checked against (2.1.x, 3.1.x; tested: ${FEED_LIBJPEG_TESTED})")
  endif()
  if(_why)
    list(JOIN _why ";\n  " _whys)
    message(WARNING "libfeed: libjpeg-turbo gate FAILED (${where}):\n  ${_whys}.\n"
            "libfeed's own Huffman decoder is compiled out (FEED_OWN_ENTROPY=0): every JPEG is "
            "decoded by libjpeg-turbo's own, slower, one. The default build "
            "(FEED_SYSTEM_LIBJPEG=OFF, third_party/libjpeg-turbo) passes the gate.")
    set(FEED_OWN_ENTROPY 0 PARENT_SCOPE)
  else()
    message(STATUS "libfeed: libjpeg-turbo ${_ver} (${where}), jpegint.h ${jpegint}: "
            "gate passed, libfeed's Huffman decoder compiled in (FEED_OWN_ENTROPY=1)")
    set(FEED_OWN_ENTROPY 1 PARENT_SCOPE)
  endif()
endfunction()

add_library(feed_libjpeg INTERFACE)
add_library(feed_turbojpeg INTERFACE)

if(FEED_SYSTEM_LIBJPEG)
  pkg_check_modules(TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)
  pkg_check_modules(LIBJPEG REQUIRED IMPORTED_TARGET libjpeg)
  target_link_libraries(feed_libjpeg INTERFACE PkgConfig::LIBJPEG)
  target_link_libraries(feed_turbojpeg INTERFACE PkgConfig::TURBOJPEG)

  # Which jpeglib.h, jpegint.h and jconfig.h the decoders' compile will take:
  # asked of the preprocessor, with pkg-config's flags, not guessed.
  set(_probe ${PROJECT_BINARY_DIR}/CMakeFiles/feed_libjpeg_probe.c)
  file(WRITE ${_probe} "#include <stdio.h>\n#include <jpeglib.h>\n#include <jpegint.h>\n"
       "feed_libjpeg_version LIBJPEG_TURBO_VERSION_NUMBER\n")
  set(_flags "")
  foreach(_d IN LISTS LIBJPEG_INCLUDE_DIRS)
    list(APPEND _flags "-I${_d}")
  endforeach()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -E ${_flags} ${LIBJPEG_CFLAGS_OTHER} ${_probe}
                  OUTPUT_VARIABLE _pp ERROR_VARIABLE _pperr RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "libfeed: cannot preprocess jpeglib.h + jpegint.h of the system's libjpeg "
            "(src/decode/jpeg_planes.c needs jpegint.h, which libjpeg-turbo does not install; "
            "Debian's libjpeg62-turbo-dev has it). Use the default FEED_SYSTEM_LIBJPEG=OFF.\n${_pperr}")
  endif()
  string(REGEX MATCH "# [0-9]+ \"([^\"]*/jpeglib\\.h)\"" _m "${_pp}")
  set(_jpeglib "${CMAKE_MATCH_1}")
  string(REGEX MATCH "# [0-9]+ \"([^\"]*/jpegint\\.h)\"" _m "${_pp}")
  set(_jpegint "${CMAKE_MATCH_1}")
  # the version again without line markers (a system header's macro expands
  # across them)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -E -P ${_flags} ${LIBJPEG_CFLAGS_OTHER} ${_probe}
                  OUTPUT_VARIABLE _pp ERROR_QUIET)
  string(REGEX MATCH "feed_libjpeg_version[ \t\r\n]*([0-9]+)" _m "${_pp}")
  set(_num "${CMAKE_MATCH_1}")
  if(NOT _num)
    set(_num 0) # not libjpeg-turbo (no LIBJPEG_TURBO_VERSION_NUMBER): not checked
  endif()
  # Is the library 3.x? Only 3.0 and later have the 12-bit entry points.
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_LIBRARIES ${LIBJPEG_LINK_LIBRARIES})
  set(CMAKE_REQUIRED_QUIET ON)
  unset(FEED_LIBJPEG_IS_3X CACHE)
  check_c_source_compiles("char jpeg12_read_scanlines(void);\nint main(void) { return (int)jpeg12_read_scanlines(); }"
                          FEED_LIBJPEG_IS_3X)
  unset(CMAKE_REQUIRED_LIBRARIES)
  unset(CMAKE_REQUIRED_QUIET)
  _feed_libjpeg_gate(${_num} "${_jpeglib}" "${_jpegint}" "${FEED_LIBJPEG_IS_3X}"
                     "FEED_SYSTEM_LIBJPEG=ON, ${LIBJPEG_LINK_LIBRARIES}")
else()
  include(ExternalProject)
  set(_src ${PROJECT_SOURCE_DIR}/third_party/libjpeg-turbo)
  set(_bin ${PROJECT_BINARY_DIR}/third_party/libjpeg-turbo)
  set(_args -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DENABLE_SHARED=OFF -DENABLE_STATIC=ON
      -DWITH_TURBOJPEG=ON -DWITH_JAVA=OFF -DWITH_TOOLS=OFF -DWITH_TESTS=OFF -DWITH_FUZZ=OFF)
  # x86's SIMD (the IDCT, upsampling, colour conversion) is assembly: nasm.
  # Arm's is intrinsics (the C compiler).
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i[3-6]86)$")
    find_program(FEED_NASM NAMES nasm yasm)
    if(FEED_NASM)
      list(APPEND _args -DWITH_SIMD=ON -DREQUIRE_SIMD=ON -DCMAKE_ASM_NASM_COMPILER=${FEED_NASM})
    else()
      message(WARNING "libfeed: no nasm: third_party/libjpeg-turbo is built WITHOUT its SIMD code "
              "(the IDCT, upsampling and colour conversion in plain C): JPEG decoding will be "
              "much slower. apt-get install nasm (scripts/deps.sh does), then configure again.")
      list(APPEND _args -DWITH_SIMD=OFF)
    endif()
  endif()
  # The default build command ($(MAKE) under Makefiles: the jobserver is
  # shared) builds what the options leave: libjpeg.a and libturbojpeg.a.
  ExternalProject_Add(feed_libjpeg_turbo
    SOURCE_DIR ${_src}
    BINARY_DIR ${_bin}
    CMAKE_ARGS ${_args}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON # an updated third_party/ is rebuilt (a no-op make otherwise)
    BUILD_BYPRODUCTS ${_bin}/libjpeg.a ${_bin}/libturbojpeg.a)
  # The headers: upstream's src/ (jpeglib.h, jpegint.h, jerror.h, jmorecfg.h,
  # turbojpeg.h) and the generated jconfig.h; before the system's (-I).
  file(MAKE_DIRECTORY ${_bin})
  target_include_directories(feed_libjpeg INTERFACE ${_src}/src ${_bin})
  target_link_libraries(feed_libjpeg INTERFACE ${_bin}/libjpeg.a)
  # libturbojpeg.a holds a copy of libjpeg.a's objects (same sources, same
  # flags): a program linking both takes each object from the first archive
  # that defines its symbols, never two of one.
  target_include_directories(feed_turbojpeg INTERFACE ${_src}/src ${_bin})
  target_link_libraries(feed_turbojpeg INTERFACE ${_bin}/libturbojpeg.a)
  add_dependencies(feed_libjpeg feed_libjpeg_turbo)
  add_dependencies(feed_turbojpeg feed_libjpeg_turbo)

  file(STRINGS ${_src}/CMakeLists.txt _v REGEX "^set\\(VERSION [0-9.]+\\)")
  string(REGEX MATCH "([0-9]+)\\.([0-9]+)\\.([0-9]+)" _m "${_v}")
  math(EXPR _num "${CMAKE_MATCH_1} * 1000000 + ${CMAKE_MATCH_2} * 1000 + ${CMAKE_MATCH_3}")
  set(_lib3 OFF)
  if(NOT _num LESS 3000000)
    set(_lib3 ON)
  endif()
  _feed_libjpeg_gate(${_num} "${_src}/src/jpeglib.h" "${_src}/src/jpegint.h" ${_lib3}
                     "third_party/libjpeg-turbo")
endif()
