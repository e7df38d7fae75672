! SPDX-License-Identifier: Apache-2.0
! A consumer of the installed Fortran module: C = A * A for the 4 x 4 matrix
! of tests/c/c_api_example.c, one-based, on the host backend (no GPU needed),
! checked against the product worked out by hand. Built by test_install.sh.
program fortran_consumer
  use, intrinsic :: iso_c_binding
  use spgemm
  implicit none
  integer(c_int32_t), target :: a_ptr(5) = [1, 3, 4, 6, 8]
  integer(c_int32_t), target :: a_col(7) = [1, 3, 2, 1, 4, 2, 4]
  real(c_double), target :: a_val(7) = [1, 2, 3, 4, 5, 6, 7]
  integer(c_int32_t), target :: c_off(5), c_col(10)
  real(c_double), target :: c_val(10)
  type(c_ptr) :: handle, A, C, plan
  integer(c_int64_t) :: nnzC

  call check(spgemmCreate(handle))
  call check(spgemmCreateCsr(A, 4_c_int64_t, 4_c_int64_t, 7_c_int64_t, c_loc(a_ptr), c_loc(a_col), &
                             c_loc(a_val), SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                             SPGEMM_INDEX_BASE_ONE, CUDA_R_64F))
  call check(spgemmCreateCsr(C, 4_c_int64_t, 4_c_int64_t, 0_c_int64_t, c_loc(c_off), c_null_ptr, &
                             c_null_ptr, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                             SPGEMM_INDEX_BASE_ONE, CUDA_R_64F))
  call check(spgemmCsrSetMemoryType(A, SPGEMM_MEMORY_HOST))
  call check(spgemmCsrSetMemoryType(C, SPGEMM_MEMORY_HOST))
  call check(spgemmPlanCreate(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
                              SPGEMM_OPERATION_NON_TRANSPOSE, A, A, C, CUDA_R_64F))
  call check(spgemmSymbolic(handle, plan, nnzC))
  if (nnzC /= 10) error stop "nnz(C) /= 10"
  call check(spgemmCsrSetPointers(C, c_loc(c_off), c_loc(c_col), c_loc(c_val)))
  call check(spgemmNumeric(handle, plan, 1.0_c_double))
  ! small integers: every product and sum is exact
  if (any(c_off /= [1, 4, 5, 9, 11])) error stop "row offsets"
  if (any(c_col /= [1, 3, 4, 2, 1, 2, 3, 4, 2, 4])) error stop "column indices"
  if (any(c_val /= [9, 2, 10, 9, 4, 30, 8, 35, 60, 49])) error stop "values"
  call check(spgemmPlanDestroy(plan))
  call check(spgemmDestroyMatrix(A))
  call check(spgemmDestroyMatrix(C))
  call check(spgemmDestroy(handle))
  print '(a)', "fortran_consumer: OK"
contains
  subroutine check(status)
    integer(c_int), intent(in) :: status
    if (status /= SPGEMM_STATUS_SUCCESS) then
      print '(3a)', spgemm_error_name(status), ": ", spgemm_last_error_message()
      error stop 1
    end if
  end subroutine check
end program fortran_consumer
