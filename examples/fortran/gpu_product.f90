! SPDX-License-Identifier: Apache-2.0
! C = A * A on the GPU from Fortran, through the module `spgemm`
! (fortran/spgemm.f90): the 4 x 4 matrix of examples/c/gpu_product.c in
! one-based CSR, copied to device memory with the CUDA runtime (bound below
! through ISO_C_BINDING; with CUDA Fortran, pass c_devloc of device arrays
! instead), multiplied there, copied back, printed and checked against a
! dense product computed here.
!
!       | 1 0 2 0 |            |  9  0  2 10 |
!   A = | 0 3 0 0 |   A * A =  |  0  9  0  0 |
!       | 4 0 0 5 |            |  4 30  8 35 |
!       | 0 6 0 7 |            |  0 60  0 49 |
!
! Exits 0 on success, 1 on a failure or a wrong result, and 77 (skipped)
! when no CUDA device is present.

! ---- the CUDA runtime functions the example calls ---------------------------
module cuda_runtime
  use, intrinsic :: iso_c_binding
  implicit none
  integer(c_int), parameter :: cudaSuccess = 0
  integer(c_int), parameter :: cudaMemcpyHostToDevice = 1
  integer(c_int), parameter :: cudaMemcpyDeviceToHost = 2
  interface
    function cudaGetDeviceCount(count) bind(C, name="cudaGetDeviceCount") result(err)
      import :: c_int
      integer(c_int), intent(out) :: count
      integer(c_int) :: err
    end function cudaGetDeviceCount
    function cudaMalloc(ptr, bytes) bind(C, name="cudaMalloc") result(err)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), intent(out) :: ptr
      integer(c_size_t), value :: bytes
      integer(c_int) :: err
    end function cudaMalloc
    function cudaFree(ptr) bind(C, name="cudaFree") result(err)
      import :: c_ptr, c_int
      type(c_ptr), value :: ptr
      integer(c_int) :: err
    end function cudaFree
    function cudaMemcpy(dst, src, bytes, kind) bind(C, name="cudaMemcpy") result(err)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
      integer(c_int), value :: kind
      integer(c_int) :: err
    end function cudaMemcpy
    function cudaStreamCreate(stream) bind(C, name="cudaStreamCreate") result(err)
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: stream
      integer(c_int) :: err
    end function cudaStreamCreate
    function cudaStreamSynchronize(stream) bind(C, name="cudaStreamSynchronize") result(err)
      import :: c_ptr, c_int
      type(c_ptr), value :: stream
      integer(c_int) :: err
    end function cudaStreamSynchronize
    function cudaStreamDestroy(stream) bind(C, name="cudaStreamDestroy") result(err)
      import :: c_ptr, c_int
      type(c_ptr), value :: stream
      integer(c_int) :: err
    end function cudaStreamDestroy
    function cudaGetErrorString(err) bind(C, name="cudaGetErrorString") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: err
      type(c_ptr) :: str
    end function cudaGetErrorString
  end interface
end module cuda_runtime

program gpu_product
  use, intrinsic :: iso_c_binding
  use spgemm
  use cuda_runtime
  implicit none
  integer, parameter :: n = 4, nnz_a = 7
  integer(c_int32_t), target :: a_ptr(n + 1) = [1, 3, 4, 6, 8]
  integer(c_int32_t), target :: a_col(nnz_a) = [1, 3, 2, 1, 4, 2, 4]
  real(c_double), target :: a_val(nnz_a) = [1, 2, 3, 4, 5, 6, 7]
  integer(c_int32_t), target :: c_ptr1(n + 1)
  integer(c_int32_t), allocatable, target :: c_col(:)
  real(c_double), allocatable, target :: c_val(:)
  type(c_ptr) :: dA_ptr, dA_col, dA_val, dC_ptr, dC_col, dC_val
  type(c_ptr) :: stream, handle, A, C, plan
  integer(c_int64_t) :: nnzC
  integer(c_int) :: devices, err
  integer :: i

  err = cudaGetDeviceCount(devices)
  if (err /= cudaSuccess .or. devices == 0) then
    if (err /= cudaSuccess) then
      print '(2a)', "SKIPPED: no CUDA device (", spgemm_c_string(cudaGetErrorString(err)) // ")"
    else
      print '(a)', "SKIPPED: no CUDA device (cudaGetDeviceCount found none)"
    end if
    stop 77
  end if

  ! A on the device, and C's row offsets (n + 1 entries, known in advance)
  call check_cuda(cudaMalloc(dA_ptr, c_sizeof(a_ptr)), "cudaMalloc")
  call check_cuda(cudaMalloc(dA_col, c_sizeof(a_col)), "cudaMalloc")
  call check_cuda(cudaMalloc(dA_val, c_sizeof(a_val)), "cudaMalloc")
  call check_cuda(cudaMalloc(dC_ptr, c_sizeof(c_ptr1)), "cudaMalloc")
  call check_cuda(cudaMemcpy(dA_ptr, c_loc(a_ptr), c_sizeof(a_ptr), cudaMemcpyHostToDevice), "cudaMemcpy")
  call check_cuda(cudaMemcpy(dA_col, c_loc(a_col), c_sizeof(a_col), cudaMemcpyHostToDevice), "cudaMemcpy")
  call check_cuda(cudaMemcpy(dA_val, c_loc(a_val), c_sizeof(a_val), cudaMemcpyHostToDevice), "cudaMemcpy")

  call check_cuda(cudaStreamCreate(stream), "cudaStreamCreate")
  call check(spgemmCreate(handle), "spgemmCreate")
  call check(spgemmSetStream(handle, stream), "spgemmSetStream")
  call check(spgemmCreateCsr(A, int(n, c_int64_t), int(n, c_int64_t), int(nnz_a, c_int64_t), &
                             dA_ptr, dA_col, dA_val, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                             SPGEMM_INDEX_BASE_ONE, CUDA_R_64F), "spgemmCreateCsr(A)")
  call check(spgemmCreateCsr(C, int(n, c_int64_t), int(n, c_int64_t), 0_c_int64_t, &
                             dC_ptr, c_null_ptr, c_null_ptr, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                             SPGEMM_INDEX_BASE_ONE, CUDA_R_64F), "spgemmCreateCsr(C)")
  call check(spgemmPlanCreate(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
                              SPGEMM_OPERATION_NON_TRANSPOSE, A, A, C, CUDA_R_64F), "spgemmPlanCreate")
  call check(spgemmAnalyze(handle, plan), "spgemmAnalyze")
  call check(spgemmSymbolic(handle, plan, nnzC), "spgemmSymbolic")   ! writes C's row offsets
  call check_cuda(cudaMalloc(dC_col, nnzC * c_sizeof(0_c_int32_t)), "cudaMalloc")
  call check_cuda(cudaMalloc(dC_val, nnzC * c_sizeof(0.0_c_double)), "cudaMalloc")
  call check(spgemmCsrSetPointers(C, dC_ptr, dC_col, dC_val), "spgemmCsrSetPointers")
  call check(spgemmNumeric(handle, plan, 1.0_c_double), "spgemmNumeric")   ! asynchronous
  call check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize")  ! wait before reading C

  allocate(c_col(nnzC), c_val(nnzC))
  call check_cuda(cudaMemcpy(c_loc(c_ptr1), dC_ptr, c_sizeof(c_ptr1), cudaMemcpyDeviceToHost), "cudaMemcpy")
  call check_cuda(cudaMemcpy(c_loc(c_col), dC_col, nnzC * c_sizeof(0_c_int32_t), cudaMemcpyDeviceToHost), "cudaMemcpy")
  call check_cuda(cudaMemcpy(c_loc(c_val), dC_val, nnzC * c_sizeof(0.0_c_double), cudaMemcpyDeviceToHost), "cudaMemcpy")

  ! plans before the descriptors they use, the handle last; then the stream and the arrays
  call check(spgemmPlanDestroy(plan), "spgemmPlanDestroy")
  call check(spgemmDestroyMatrix(A), "spgemmDestroyMatrix(A)")
  call check(spgemmDestroyMatrix(C), "spgemmDestroyMatrix(C)")
  call check(spgemmDestroy(handle), "spgemmDestroy")
  call check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy")
  call check_cuda(cudaFree(dA_ptr), "cudaFree")
  call check_cuda(cudaFree(dA_col), "cudaFree")
  call check_cuda(cudaFree(dA_val), "cudaFree")
  call check_cuda(cudaFree(dC_ptr), "cudaFree")
  call check_cuda(cudaFree(dC_col), "cudaFree")
  call check_cuda(cudaFree(dC_val), "cudaFree")

  if (.not. matches_reference()) then
    print '(a)', "gpu_product (Fortran): FAILED: C differs from the serial reference"
    error stop 1
  end if
  print '(a, i0, a)', "C = A * A, ", nnzC, " entries:"
  do i = 1, n
    print '(2x, 4f7.1)', dense_row(i)
  end do
  print '(a)', "gpu_product (Fortran): OK"

contains

  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= SPGEMM_STATUS_SUCCESS) then
      print '(5a)', what, ": ", spgemm_error_name(status), " (", spgemm_last_error_message() // ")"
      error stop 1
    end if
  end subroutine check

  subroutine check_cuda(err, what)
    integer(c_int), intent(in) :: err
    character(len=*), intent(in) :: what
    if (err /= cudaSuccess) then
      print '(3a)', what, ": ", spgemm_c_string(cudaGetErrorString(err))
      error stop 1
    end if
  end subroutine check_cuda

  ! Row i of C (as copied back) as a dense row.
  function dense_row(i) result(row)
    integer, intent(in) :: i
    real(c_double) :: row(n)
    integer :: k
    row = 0
    do k = c_ptr1(i), c_ptr1(i + 1) - 1
      row(c_col(k)) = c_val(k)
    end do
  end function dense_row

  ! The serial reference: dense C = A * A, then C (one-based CSR) compared
  ! with it: the same entries (positive values: no cancellation), sorted
  ! rows, values within rounding.
  logical function matches_reference()
    real(c_double) :: want(n, n), got(n, n)
    integer :: i, ka, kb, k
    want = 0
    do i = 1, n
      do ka = a_ptr(i), a_ptr(i + 1) - 1
        do kb = a_ptr(a_col(ka)), a_ptr(a_col(ka) + 1) - 1
          want(i, a_col(kb)) = want(i, a_col(kb)) + a_val(ka) * a_val(kb)
        end do
      end do
    end do
    matches_reference = .false.
    if (nnzC /= count(want /= 0) .or. c_ptr1(1) /= 1 .or. c_ptr1(n + 1) /= nnzC + 1) return
    do i = 1, n
      if (c_ptr1(i + 1) < c_ptr1(i)) return
      do k = c_ptr1(i), c_ptr1(i + 1) - 1
        if (c_col(k) < 1 .or. c_col(k) > n) return
        if (k > c_ptr1(i)) then
          if (c_col(k) <= c_col(k - 1)) return
        end if
      end do
    end do
    do i = 1, n
      got(i, :) = dense_row(i)
    end do
    matches_reference = all(abs(got - want) <= 1d-12 * abs(want))
  end function matches_reference

end program gpu_product
