# Installs EGG into a scratch prefix, then configures, builds and runs a
# project that uses it only through find_package(EGG).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${EGG_BINARY_DIR}
                        --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -G Ninja
                  -S ${EGG_SOURCE_DIR}/test/package/consumer
                  -B ${WORK_DIR}/build
                  -DEGG_DIR=${WORK_DIR}/prefix/lib/cmake/egg
                  -DMLIR_DIR=${MLIR_DIR}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configure failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "build failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/egg-consumer
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message(STATUS "consumer printed: ${out}")
if(rc OR NOT out MATCHES "#egg.structure<gemm_split_k, split_k = 4>")
  message(FATAL_ERROR "consumer failed (${rc}): ${out}")
endif()
