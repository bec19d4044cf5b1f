# Installs the build into a scratch prefix, then configures, builds and runs
# a consumer project that uses find_package(hsa-runtime64).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR; C_COMPILER and LINK_FLAGS, the
# build's compiler and what a program linking the library needs (sanitizers).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
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
# The installed library must win over any other libhsa-runtime64.so.1 on the
# system (Debian's ROCR may be installed as a test oracle).
execute_process(COMMAND ${CMAKE_COMMAND} -E env
                        LD_LIBRARY_PATH=${WORK_DIR}/prefix/lib
                        ${WORK_DIR}/build/consumer RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
message(STATUS "${out}")
if(rc)
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()
