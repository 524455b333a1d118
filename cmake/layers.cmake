# The layering the build enforces (docs/DESIGN.md §2, "What the build
# enforces").
#
# Every source names a runtime header by its path from the project root
# ("runtime/heap/partition.hpp"), so one include directory at the root would
# let any file reach any layer. Instead each layer compiles against an
# include tree of its own, build/layers/<layer>/, which holds one symlink per
# layer it may use -- runtime/<itself> and runtime/<each layer below> -- and
# nothing else: no higher layer and no public header (include/ is not on its
# path). An upward include is then a missing file, and the compile fails on
# the #include line. The trees are symlinks to the source folders, so a new
# header is visible at once without re-running CMake; the quoted-include
# rule of searching the including file's own folder first cannot bypass
# them, because runtime/<layer>/runtime/... does not exist.
#
# Layers, bottom up. Each may include itself and the layers before it.
set(DSTD_LAYERS common transport heap coherence sched sync control)

# dstd_include_tree(<name> <out> <folders...>): build/layers/<name>/ with
# runtime/<folder> -> runtime/<folder> for each folder; its root in <out>.
function(dstd_include_tree name out)
  set(root ${PROJECT_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${root}/runtime)
  foreach(folder IN LISTS ARGN)
    if(NOT EXISTS ${root}/runtime/${folder})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/runtime/${folder} ${root}/runtime/${folder} SYMBOLIC)
    endif()
  endforeach()
  set(${out} ${root} PARENT_SCOPE)
endfunction()

# The tree of <layer>: the layer and every layer below it.
function(dstd_layer_tree layer out)
  list(FIND DSTD_LAYERS ${layer} last)
  if(last EQUAL -1)
    message(FATAL_ERROR "dstd_layer_tree: unknown layer '${layer}' (layers: ${DSTD_LAYERS})")
  endif()
  list(SUBLIST DSTD_LAYERS 0 ${last} folders)
  dstd_include_tree(${layer} root ${folders} ${layer})
  set(${out} ${root} PARENT_SCOPE)
endfunction()

# What <target> may include when it is compiled as part of <layer>.
function(dstd_layer_includes target layer)
  dstd_layer_tree(${layer} tree)
  target_include_directories(${target} PRIVATE ${tree})
endfunction()

# dstd_layer(<layer> SOURCES <files...> [LINK <libraries...>])
# The object library dstd_<layer>: its sources see only the layer's tree;
# it links PRIVATE to the layer below (whose usage requirements it gets, and
# whose objects libdstd takes alongside its own) and to LINK.
function(dstd_layer layer)
  cmake_parse_arguments(L "" "" "SOURCES;LINK" ${ARGN})
  add_library(dstd_${layer} OBJECT ${L_SOURCES})
  dstd_layer_includes(dstd_${layer} ${layer})
  list(FIND DSTD_LAYERS ${layer} index)
  if(index GREATER 0)
    math(EXPR below_index "${index} - 1")
    list(GET DSTD_LAYERS ${below_index} below)
    target_link_libraries(dstd_${layer} PRIVATE dstd_${below})
  endif()
  if(L_LINK)
    target_link_libraries(dstd_${layer} PRIVATE ${L_LINK})
  endif()
  dstd_warnings(dstd_${layer})
  dstd_runtime_code(dstd_${layer})
endfunction()

# libdstd's own code: a call to an interposed sync function (pthread_*,
# sem_*, __cxa_guard_*) must come back to libdstd, because the interposer
# tells the runtime's own locks from the program's by the return address
# (dstd/interpose/route.hpp). A sibling call would return to libdstd's
# caller instead, so libdstd is compiled without them
# (tests/layering/no_sync_tail_calls.sh checks the library).
function(dstd_runtime_code target)
  target_compile_options(${target} PRIVATE -fno-optimize-sibling-calls)
endfunction()

# dstd_layer_exception(<layer> <source> SEES <layer>|public BECAUSE <text>)
# A known upward include in one source file, allowed by name until the file
# is fixed: the file alone gets the higher layer's tree (or the public
# headers). Every exception is a debt, listed in runtime/CMakeLists.txt
# with the reason and who removes it.
function(dstd_layer_exception source)
  cmake_parse_arguments(E "" "SEES;BECAUSE" "" ${ARGN})
  if(NOT E_BECAUSE)
    message(FATAL_ERROR "dstd_layer_exception(${source}): say BECAUSE")
  endif()
  if(E_SEES STREQUAL "public")
    set(dir ${PROJECT_SOURCE_DIR}/include)
  else()
    dstd_layer_tree(${E_SEES} dir)
  endif()
  set_property(SOURCE ${source} APPEND PROPERTY INCLUDE_DIRECTORIES ${dir})
endfunction()
