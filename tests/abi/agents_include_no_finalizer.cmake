# Agents reach finalized code only through the seam both sides include
# (abi/RuntimeHelpers.h, include/hsa/hsa_ext_openhsa.h), never through the
# finalizer's own headers. Fails naming each file of an agent folder that
# includes one.
#
#   cmake -DSOURCE_DIR=<repository> -P agents_include_no_finalizer.cmake
set(agent_dirs cpu_agent gpu_backend)
set(offenders "")
foreach(dir ${agent_dirs})
  file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cpp)
  foreach(f ${files})
    file(STRINGS ${f} hits REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]finalizer/")
    if(hits)
      list(APPEND offenders "${f}: ${hits}")
    endif()
  endforeach()
endforeach()
if(offenders)
  list(JOIN offenders "\n  " text)
  message(FATAL_ERROR "agent code includes finalizer headers:\n  ${text}")
endif()
message(STATUS "no agent source includes a finalizer header")
