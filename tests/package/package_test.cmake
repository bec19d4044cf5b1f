# Installs the build into a scratch prefix, then configures, builds and runs
# a consumer project that uses find_package(hsa-runtime64), and runs the
# installed tools.
# Inputs: BUILD_DIR, SOURCE_DIR, KERNEL (HSAIL for openhsa-run), WORK_DIR,
# BINDIR and LIBDIR (CMAKE_INSTALL_BINDIR/LIBDIR).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
# The installed library must win over any other libhsa-runtime64.so.1 on the
# system (Debian's ROCR may be installed as a test oracle).
execute_process(COMMAND ${CMAKE_COMMAND} -E env
                        LD_LIBRARY_PATH=${WORK_DIR}/prefix/${LIBDIR}
                        ${WORK_DIR}/build/consumer RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
message(STATUS "${out}")
if(rc)
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()

# The installed tools, with no LD_LIBRARY_PATH: their RUNPATH
# ($ORIGIN/../lib) must make them load the installed library rather than
# another libhsa-runtime64.so.1 in the loader's search path (Debian's ROCR).
get_filename_component(ours ${WORK_DIR}/prefix/${LIBDIR}/libhsa-runtime64.so.1
                       REALPATH)
function(run_installed tool)
  set(exe ${WORK_DIR}/prefix/${BINDIR}/${tool})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
                          LD_TRACE_LOADED_OBJECTS=1 ${exe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE trace)
  if(rc OR NOT trace MATCHES "libhsa-runtime64\\.so\\.1 => ([^ \t\n]+)")
    message(FATAL_ERROR "${tool}: the loader did not resolve "
                        "libhsa-runtime64.so.1 (${rc}):\n${trace}")
  endif()
  get_filename_component(loaded ${CMAKE_MATCH_1} REALPATH)
  if(NOT loaded STREQUAL ours)
    message(FATAL_ERROR "${tool} loads ${CMAKE_MATCH_1}, not ${ours}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
                          ${exe} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "installed ${tool} failed (${rc}):\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run_installed(openhsa-info)
if(NOT out MATCHES "Agent 0: ")
  message(FATAL_ERROR "openhsa-info listed no agent:\n${out}")
endif()
run_installed(openhsa-run ${KERNEL} -k &store --grid 4 --group 4
              --arg buf:16:print=u32)
if(NOT out MATCHES "arg 0: 42 43 44 45\n")
  message(FATAL_ERROR "openhsa-run gave the wrong values:\n${out}")
endif()
