# Installs the build into a scratch prefix, then configures, builds and runs
# a consumer project that uses find_package(hsa-runtime64), and runs the
# installed tools. Every program runs without LD_LIBRARY_PATH and must load
# the installed library, not another libhsa-runtime64.so.1 on the system
# (Debian's ROCR may be installed as a test oracle, with its own CMake
# package).
# Inputs: BUILD_DIR, SOURCE_DIR, KERNEL (HSAIL for openhsa-run), WORK_DIR,
# BINDIR and LIBDIR (CMAKE_INSTALL_BINDIR/LIBDIR); C_COMPILER and
# LINK_FLAGS, the build's compiler and what a program linking the library
# needs (sanitizers).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
get_filename_component(ours ${prefix}/${LIBDIR}/libhsa-runtime64.so.1 REALPATH)

# run_installed(EXE ARGS...): checks which libhsa-runtime64.so.1 the loader
# resolves for EXE, then runs it; its stdout comes back in `out`.
function(run_installed exe)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
                          LD_TRACE_LOADED_OBJECTS=1 ${exe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE trace)
  if(rc OR NOT trace MATCHES "libhsa-runtime64\\.so\\.1 => ([^ \t\n]+)")
    message(FATAL_ERROR "${exe}: the loader did not resolve "
                        "libhsa-runtime64.so.1 (${rc}):\n${trace}")
  endif()
  get_filename_component(loaded ${CMAKE_MATCH_1} REALPATH)
  if(NOT loaded STREQUAL ours)
    message(FATAL_ERROR "${exe} loads ${CMAKE_MATCH_1}, not ${ours}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
                          ${exe} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc OR err MATCHES "no version information")
    message(FATAL_ERROR "${exe} failed (${rc}):\n${out}${err}")
  endif()
  message(STATUS "${exe} (with ${loaded}):\n${out}")
  set(out "${out}" PARENT_SCOPE)
endfunction()

# The consumer: find_package(hsa-runtime64 1.0) must find the installed
# package (CMAKE_PREFIX_PATH) and link the installed library.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
                        -DCMAKE_PREFIX_PATH=${prefix}
                        -DCMAKE_C_COMPILER=${C_COMPILER}
                        "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
run_installed(${WORK_DIR}/build/consumer)

# The installed tools: their RUNPATH ($ORIGIN/../lib) finds the library.
run_installed(${prefix}/${BINDIR}/openhsa-info)
if(NOT out MATCHES "Agent 0: ")
  message(FATAL_ERROR "openhsa-info listed no agent:\n${out}")
endif()
run_installed(${prefix}/${BINDIR}/openhsa-run ${KERNEL} -k &store --grid 4
              --group 4 --arg buf:16:print=u32)
if(NOT out MATCHES "arg 0: 42 43 44 45\n")
  message(FATAL_ERROR "openhsa-run gave the wrong values:\n${out}")
endif()
