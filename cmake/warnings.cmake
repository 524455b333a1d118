# One warning policy for every target of the project.
function(dstd_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(DSTD_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
