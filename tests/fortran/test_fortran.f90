! SPDX-License-Identifier: Apache-2.0
! The Fortran module `spgemm` (fortran/spgemm.f90) on one-based CSR matrices:
! products built here by formula (a 2D Laplacian-like matrix with unsorted
! rows, rectangular matrices with empty rows), multiplied through the module
! and checked against a serial Fortran reference (a dense accumulator per
! row): C's one-based row offsets and sorted one-based column indices
! exactly, values within a tolerance. Every output is poisoned first; each
! case runs spgemmNumeric a second time after new values (same structure).
! Layouts: 32/32-bit, 64/64-bit and 64/32-bit offsets/indices; double and
! float; two products with an addend (C = alpha * A * B + beta * D); and,
! where the library computes on them, complex values with a complex alpha.
!
!   test_fortran host   host-memory matrices (host backend); no GPU needed
!   test_fortran gpu    device-memory matrices; exits 77 without a GPU
!   test_fortran        both: exit 0 if the host part passed and the GPU
!                       part passed or was skipped
!
! The CUDA runtime calls the GPU part needs are bound here (module cuda_rt).

! ---- the few CUDA runtime functions the test uses ---------------------------
module cuda_rt
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
      type(c_ptr), value :: dst
      type(c_ptr), value :: src
      integer(c_size_t), value :: bytes
      integer(c_int), value :: kind
      integer(c_int) :: err
    end function cudaMemcpy
    function cudaDeviceSynchronize() bind(C, name="cudaDeviceSynchronize") result(err)
      import :: c_int
      integer(c_int) :: err
    end function cudaDeviceSynchronize
    function cudaGetErrorString(err) bind(C, name="cudaGetErrorString") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: err
      type(c_ptr) :: str
    end function cudaGetErrorString
  end interface
end module cuda_rt

! ---- matrices, reference product, checks, buffers ---------------------------
module test_support
  use, intrinsic :: iso_c_binding
  use spgemm
  use cuda_rt
  implicit none

  integer :: failures = 0   ! every failed check adds one

  ! A one-based CSR matrix, always held with 64-bit integers and double values.
  type csr
    integer(c_int64_t) :: rows = 0, cols = 0
    integer(c_int64_t), allocatable :: ptr(:)   ! rows + 1 entries, ptr(1) = 1
    integer(c_int64_t), allocatable :: col(:)   ! in 1 .. cols
    real(c_double), allocatable :: val(:)
  end type csr

  ! One array in the layout handed to the library: 32- or 64-bit integers,
  ! float or double values. Variables of this type are declared `target`,
  ! so c_loc of a component stays valid while it is allocated.
  type host_buf
    integer(c_int32_t), allocatable :: i32(:)
    integer(c_int64_t), allocatable :: i64(:)
    real(c_float), allocatable :: r32(:)
    real(c_double), allocatable :: r64(:)
  end type host_buf

  ! A device copy of a host_buf.
  type dev_buf
    type(c_ptr) :: p = c_null_ptr
    integer(c_size_t) :: bytes = 0
  end type dev_buf

  integer(c_int64_t), parameter :: POISON_INDEX = -777

contains

  ! ---- status checks ---------------------------------------------------------
  logical function ok(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    ok = status == SPGEMM_STATUS_SUCCESS
    if (.not. ok) then
      failures = failures + 1
      print '(5a)', "FAIL: ", what, " returned ", spgemm_error_name(status), &
          " (" // spgemm_last_error_message() // ")"
    end if
  end function ok

  logical function expect_status(status, expected, what)
    integer(c_int), intent(in) :: status, expected
    character(len=*), intent(in) :: what
    expect_status = status == expected
    if (.not. expect_status) then
      failures = failures + 1
      print '(5a)', "FAIL: ", what, " returned ", spgemm_error_name(status), &
          ", expected " // spgemm_error_name(expected)
    end if
  end function expect_status

  logical function cuda_ok(err, what)
    integer(c_int), intent(in) :: err
    character(len=*), intent(in) :: what
    cuda_ok = err == cudaSuccess
    if (.not. cuda_ok) then
      failures = failures + 1
      print '(4a)', "FAIL: ", what, ": ", spgemm_c_string(cudaGetErrorString(err))
    end if
  end function cuda_ok

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      print '(2a)', "FAIL: ", what
    end if
  end subroutine expect

  ! ---- matrices by formula ---------------------------------------------------
  ! Entry k's value for a seed: |v| in [0.5, 1.5), sign mixed, never zero.
  pure real(c_double) function value_of(k, seed)
    integer(c_int64_t), intent(in) :: k
    integer, intent(in) :: seed
    value_of = 0.5d0 + real(mod(k * 37 + int(seed, c_int64_t) * 11, 101_c_int64_t), c_double) / 101d0
    if (mod(k + seed, 3_c_int64_t) == 0) value_of = -value_of
  end function value_of

  ! New values, same structure.
  subroutine revalue(M, seed)
    type(csr), intent(inout) :: M
    integer, intent(in) :: seed
    integer(c_int64_t) :: k
    do k = 1, size(M%val, kind=c_int64_t)
      M%val(k) = value_of(k, seed)
    end do
  end subroutine revalue

  ! The 5-point stencil on an nx x ny grid: each row stores its diagonal
  ! first, then its neighbours (west, east, south, north), so rows are not
  ! sorted (valid input: the library sorts C).
  function laplacian_2d(nx, ny, seed) result(M)
    integer, intent(in) :: nx, ny, seed
    type(csr) :: M
    integer(c_int64_t) :: row, k, n
    integer :: ix, iy
    n = int(nx, c_int64_t) * ny
    M%rows = n
    M%cols = n
    allocate(M%ptr(n + 1), M%col(5 * n), M%val(5 * n))
    k = 0
    M%ptr(1) = 1
    do iy = 1, ny
      do ix = 1, nx
        row = int(iy - 1, c_int64_t) * nx + ix
        call add(row)
        if (ix > 1) call add(row - 1)
        if (ix < nx) call add(row + 1)
        if (iy > 1) call add(row - nx)
        if (iy < ny) call add(row + nx)
        M%ptr(row + 1) = k + 1
      end do
    end do
    M%col = M%col(1:k)
    M%val = M%val(1:k)
  contains
    subroutine add(column)
      integer(c_int64_t), intent(in) :: column
      k = k + 1
      M%col(k) = column
      M%val(k) = value_of(k, seed)
      if (column == row) M%val(k) = 4d0 + M%val(k)
    end subroutine add
  end function laplacian_2d

  ! rows x cols with 0 .. max_per_row entries per row (some rows empty), in
  ! scattered, unsorted column order, no column twice in a row.
  function scattered(rows, cols, max_per_row, seed) result(M)
    integer, intent(in) :: rows, cols, max_per_row, seed
    type(csr) :: M
    integer(c_int64_t) :: k, column
    integer :: i, t, count
    M%rows = rows
    M%cols = cols
    allocate(M%ptr(rows + 1), M%col(int(rows, c_int64_t) * max_per_row), &
             M%val(int(rows, c_int64_t) * max_per_row))
    k = 0
    M%ptr(1) = 1
    do i = 1, rows
      count = mod(i * 7 + seed, max_per_row + 1)
      do t = 0, count - 1
        column = 1 + mod(int(i, c_int64_t) * 13 + t * (2 * t + 5) + seed * 3, int(cols, c_int64_t))
        if (any(M%col(M%ptr(i):k) == column)) cycle
        k = k + 1
        M%col(k) = column
        M%val(k) = value_of(k, seed)
      end do
      M%ptr(i + 1) = k + 1
    end do
    M%col = M%col(1:k)
    M%val = M%val(1:k)
  end function scattered

  ! ---- the reference: C = alpha * A * B (+ beta * D), a dense accumulator per row
  ! bound(e) = |alpha| * sum |a_ik| |b_kj| (+ |beta d_ij|) for entry e of C
  ! (the tolerance's scale). With single, the inputs are first rounded to float, as the
  ! library sees them. Columns come out sorted; every column reached by a
  ! product is an entry (structural nnz).
  subroutine reference_product(A, B, alpha, single, C, bound, D, beta)
    type(csr), intent(in) :: A, B
    real(c_double), intent(in) :: alpha
    logical, intent(in) :: single
    type(csr), intent(out) :: C
    real(c_double), allocatable, intent(out) :: bound(:)
    type(csr), intent(in), optional :: D      ! addend, C's shape
    real(c_double), intent(in), optional :: beta
    real(c_double) :: acc(B%cols), mag(B%cols), x, y
    logical :: reached(B%cols)
    integer(c_int64_t) :: i, ka, kb, j, e, capacity
    capacity = 0
    do ka = 1, size(A%col, kind=c_int64_t)
      capacity = capacity + B%ptr(A%col(ka) + 1) - B%ptr(A%col(ka))
    end do
    if (present(D)) capacity = capacity + size(D%col)
    C%rows = A%rows
    C%cols = B%cols
    allocate(C%ptr(A%rows + 1), C%col(capacity), C%val(capacity), bound(capacity))
    C%ptr(1) = 1
    e = 0
    do i = 1, A%rows
      acc = 0
      mag = 0
      reached = .false.
      do ka = A%ptr(i), A%ptr(i + 1) - 1
        do kb = B%ptr(A%col(ka)), B%ptr(A%col(ka) + 1) - 1
          x = A%val(ka)
          y = B%val(kb)
          if (single) then
            x = real(real(x, c_float), c_double)
            y = real(real(y, c_float), c_double)
          end if
          j = B%col(kb)
          acc(j) = acc(j) + alpha * x * y
          mag(j) = mag(j) + abs(alpha * x * y)
          reached(j) = .true.
        end do
      end do
      if (present(D)) then
        do kb = D%ptr(i), D%ptr(i + 1) - 1
          y = D%val(kb)
          if (single) y = real(real(y, c_float), c_double)
          j = D%col(kb)
          acc(j) = acc(j) + beta * y
          mag(j) = mag(j) + abs(beta * y)
          reached(j) = .true.
        end do
      end if
      do j = 1, B%cols
        if (.not. reached(j)) cycle
        e = e + 1
        C%col(e) = j
        C%val(e) = acc(j)
        bound(e) = mag(j)
      end do
      C%ptr(i + 1) = e + 1
    end do
    C%col = C%col(1:e)
    C%val = C%val(1:e)
    bound = bound(1:e)
  end subroutine reference_product

  ! Row offsets of C against the reference (after spgemmSymbolic).
  subroutine check_offsets(label, ref, got)
    character(len=*), intent(in) :: label
    type(csr), intent(in) :: ref
    integer(c_int64_t), intent(in) :: got(:)
    integer(c_int64_t) :: i
    call expect(size(got, kind=c_int64_t) == ref%rows + 1, label // ": row offsets length")
    if (size(got, kind=c_int64_t) /= ref%rows + 1) return
    call expect(got(1) == 1, label // ": row offsets must start at 1 (one-based)")
    do i = 1, ref%rows
      if (got(i + 1) < got(i)) then
        call expect(.false., label // ": row offsets decrease")
        exit
      end if
    end do
    do i = 1, ref%rows + 1
      if (got(i) /= ref%ptr(i)) then
        print '(a,a,i0,a,i0,a,i0)', label, ": row offset ", i, " = ", got(i), ", expected ", ref%ptr(i)
        call expect(.false., label // ": row offsets differ from the reference")
        exit
      end if
    end do
  end subroutine check_offsets

  ! Columns (one-based, strictly increasing in each row) and values of C.
  subroutine check_entries(label, ref, bound, rtol, col, val)
    character(len=*), intent(in) :: label
    type(csr), intent(in) :: ref
    real(c_double), intent(in) :: bound(:), rtol
    integer(c_int64_t), intent(in) :: col(:)
    real(c_double), intent(in) :: val(:)
    integer(c_int64_t) :: i, e, bad
    call expect(size(col) == size(ref%col) .and. size(val) == size(ref%col), label // ": nnz(C)")
    if (size(col) /= size(ref%col) .or. size(val) /= size(ref%col)) return
    bad = 0
    do i = 1, ref%rows
      do e = ref%ptr(i), ref%ptr(i + 1) - 1
        if (col(e) < 1 .or. col(e) > ref%cols) then
          bad = bad + 1
          if (bad <= 5) print '(a,a,i0,a,i0,a)', label, ": row ", i, " column ", col(e), &
              " outside 1 .. cols (one-based)"
        else if (e > ref%ptr(i)) then
          if (col(e) <= col(e - 1)) then
            bad = bad + 1
            if (bad <= 5) print '(a,a,i0,a)', label, ": row ", i, " columns not strictly increasing"
          end if
        end if
        if (col(e) /= ref%col(e)) then
          bad = bad + 1
          if (bad <= 5) print '(a,a,i0,a,i0,a,i0)', label, ": entry ", e, " column ", col(e), &
              ", expected ", ref%col(e)
        end if
        ! also false for NaN, the poison of the values
        if (.not. (abs(val(e) - ref%val(e)) <= rtol * bound(e) + tiny(1d0))) then
          bad = bad + 1
          if (bad <= 5) print '(a,a,i0,a,es24.16,a,es24.16)', label, ": entry ", e, " value ", &
              val(e), ", expected ", ref%val(e)
        end if
      end do
    end do
    call expect(bad == 0, label // ": entries of C differ from the reference")
  end subroutine check_entries

  ! ---- host buffers in the library's layout -----------------------------------
  subroutine set_ints(buf, values, wide)
    type(host_buf), intent(inout) :: buf
    integer(c_int64_t), intent(in) :: values(:)
    logical, intent(in) :: wide
    if (allocated(buf%i32)) deallocate(buf%i32)
    if (allocated(buf%i64)) deallocate(buf%i64)
    if (wide) then
      allocate(buf%i64(size(values)))
      buf%i64 = values
    else
      allocate(buf%i32(size(values)))
      buf%i32 = int(values, c_int32_t)
    end if
  end subroutine set_ints

  ! Overwrites the values in place (same allocation) when the size is the
  ! same, so a descriptor that points at them sees the new values.
  subroutine set_reals(buf, values, single)
    type(host_buf), intent(inout) :: buf
    real(c_double), intent(in) :: values(:)
    logical, intent(in) :: single
    if (single) then
      if (allocated(buf%r32)) then
        if (size(buf%r32) /= size(values)) deallocate(buf%r32)
      end if
      if (.not. allocated(buf%r32)) allocate(buf%r32(size(values)))
      buf%r32 = real(values, c_float)
    else
      if (allocated(buf%r64)) then
        if (size(buf%r64) /= size(values)) deallocate(buf%r64)
      end if
      if (.not. allocated(buf%r64)) allocate(buf%r64(size(values)))
      buf%r64 = values
    end if
  end subroutine set_reals

  function get_ints(buf) result(values)
    type(host_buf), intent(in) :: buf
    integer(c_int64_t), allocatable :: values(:)
    if (allocated(buf%i64)) then
      values = buf%i64
    else
      values = int(buf%i32, c_int64_t)
    end if
  end function get_ints

  function get_reals(buf) result(values)
    type(host_buf), intent(in) :: buf
    real(c_double), allocatable :: values(:)
    if (allocated(buf%r64)) then
      values = buf%r64
    else
      values = real(buf%r32, c_double)
    end if
  end function get_reals

  function host_ptr(buf) result(p)
    type(host_buf), intent(in), target :: buf
    type(c_ptr) :: p
    p = c_null_ptr
    if (allocated(buf%i32)) p = c_loc(buf%i32)
    if (allocated(buf%i64)) p = c_loc(buf%i64)
    if (allocated(buf%r32)) p = c_loc(buf%r32)
    if (allocated(buf%r64)) p = c_loc(buf%r64)
  end function host_ptr

  integer(c_size_t) function host_bytes(buf)
    type(host_buf), intent(in) :: buf
    host_bytes = 0
    if (allocated(buf%i32)) host_bytes = size(buf%i32) * c_sizeof(0_c_int32_t)
    if (allocated(buf%i64)) host_bytes = size(buf%i64) * c_sizeof(0_c_int64_t)
    if (allocated(buf%r32)) host_bytes = size(buf%r32) * c_sizeof(0.0_c_float)
    if (allocated(buf%r64)) host_bytes = size(buf%r64) * c_sizeof(0.0_c_double)
  end function host_bytes

  ! ---- device copies ------------------------------------------------------------
  ! Allocates d on first use, then copies buf into it.
  logical function upload(d, buf)
    type(dev_buf), intent(inout) :: d
    type(host_buf), intent(in), target :: buf
    upload = .true.
    if (.not. c_associated(d%p)) then
      d%bytes = host_bytes(buf)
      upload = cuda_ok(cudaMalloc(d%p, d%bytes), "cudaMalloc")
      if (.not. upload) return
    end if
    upload = cuda_ok(cudaMemcpy(d%p, host_ptr(buf), d%bytes, cudaMemcpyHostToDevice), &
                     "cudaMemcpy to the device")
  end function upload

  logical function download(buf, d)
    type(host_buf), intent(inout), target :: buf
    type(dev_buf), intent(in) :: d
    download = cuda_ok(cudaMemcpy(host_ptr(buf), d%p, d%bytes, cudaMemcpyDeviceToHost), &
                       "cudaMemcpy to the host")
  end function download

  subroutine release(d)
    type(dev_buf), intent(inout) :: d
    if (c_associated(d%p)) then
      if (cuda_ok(cudaFree(d%p), "cudaFree")) continue
    end if
    d%p = c_null_ptr
    d%bytes = 0
  end subroutine release

end module test_support

! ---- a device allocator written in Fortran (spgemmSetDeviceAllocator) --------
module fortran_allocator
  use, intrinsic :: iso_c_binding
  use cuda_rt
  implicit none
  integer :: allocations = 0, frees = 0
  integer(c_size_t) :: outstanding = 0
  logical :: foreign_user = .false.   ! a callback got another `user` pointer
  integer, target :: user_tag = 42    ! c_loc(user_tag) is the `user` argument
contains
  function counting_alloc(user, ptr, bytes, stream) bind(C) result(rc)
    type(c_ptr), value :: user
    type(c_ptr), intent(out) :: ptr
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: stream
    integer(c_int) :: rc
    if (.not. c_associated(user, c_loc(user_tag))) foreign_user = .true.
    if (c_associated(stream)) continue   ! cudaMalloc memory is usable on any stream
    rc = cudaMalloc(ptr, bytes)
    if (rc /= cudaSuccess) then
      ptr = c_null_ptr
      rc = 1
      return
    end if
    allocations = allocations + 1
    outstanding = outstanding + bytes
  end function counting_alloc

  subroutine counting_free(user, ptr, bytes, stream) bind(C)
    type(c_ptr), value :: user
    type(c_ptr), value :: ptr
    integer(c_size_t), value :: bytes
    type(c_ptr), value :: stream
    integer(c_int) :: err
    if (.not. c_associated(user, c_loc(user_tag))) foreign_user = .true.
    if (c_associated(stream)) continue
    err = cudaFree(ptr)   ! synchronizes the device: no work can still use ptr
    frees = frees + 1
    outstanding = outstanding - bytes
  end subroutine counting_free

  ! A free callback that is never called (spgemmSetDeviceAllocator checks)
  subroutine dummy_free(user, ptr, bytes, stream) bind(C)
    type(c_ptr), value :: user, ptr, stream
    integer(c_size_t), value :: bytes
    if (c_associated(user) .or. c_associated(ptr) .or. c_associated(stream) .or. bytes < 0) continue
  end subroutine dummy_free
end module fortran_allocator

! ---- one product, run through the module ----------------------------------------
module product_case
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic
  use spgemm
  use cuda_rt
  use test_support
  use fortran_allocator
  implicit none
contains

  ! C = alpha1 * A * B, then new values of A and B (same structure) and
  ! C = alpha2 * A * B with the same plan. memory: SPGEMM_MEMORY_HOST or
  ! SPGEMM_MEMORY_DEVICE. wide_offsets / wide_indices: 64-bit row offsets /
  ! column indices. single: float values. own_allocator (device): workspace
  ! from the Fortran allocator above. With D0: C = alpha * A * B + beta * D
  ! (spgemmPlanCreateWithAddend, spgemmNumericWithAddend; beta 0.5, then
  ! -1.25 with new values of D too).
  subroutine run_product(label, handle, A0, B0, memory, wide_offsets, wide_indices, single, &
                         alpha1, alpha2, own_allocator, D0)
    character(len=*), intent(in) :: label
    type(c_ptr), intent(in) :: handle
    type(csr), intent(in) :: A0, B0
    integer(c_int), intent(in) :: memory
    logical, intent(in) :: wide_offsets, wide_indices, single, own_allocator
    real(c_double), intent(in) :: alpha1, alpha2
    type(csr), intent(in), optional :: D0

    type(csr) :: A, B, D, ref
    real(c_double), allocatable :: bound(:)
    type(host_buf), target :: a_ptr, a_col, a_val, b_ptr, b_col, b_val, c_offs, c_col, c_val
    type(host_buf), target :: d_ptr, d_col, d_val
    type(dev_buf) :: da_ptr, da_col, da_val, db_ptr, db_col, db_val, dc_ptr, dc_col, dc_val
    type(dev_buf) :: dd_ptr, dd_col, dd_val
    type(c_ptr) :: matA, matB, matC, matD, plan, p_ptr, p_col, p_val
    integer(c_int) :: offset_type, index_type, value_type, memory_got, base_got, otype_got
    integer(c_int) :: itype_got, vtype_got
    integer(c_int64_t) :: nnzC, rows_got, cols_got, nnz_got
    integer(c_size_t) :: current, peak
    logical :: device
    real(c_float), target :: alpha_f, beta_f
    real(c_double), target :: alpha_d, beta_d
    real(c_double) :: rtol, beta(2)
    logical :: addend
    integer :: round

    device = memory == SPGEMM_MEMORY_DEVICE
    addend = present(D0)
    beta = [0.5d0, -1.25d0]
    offset_type = merge(SPGEMM_INDEX_64I, SPGEMM_INDEX_32I, wide_offsets)
    index_type = merge(SPGEMM_INDEX_64I, SPGEMM_INDEX_32I, wide_indices)
    value_type = merge(CUDA_R_32F, CUDA_R_64F, single)
    rtol = merge(1d-4, 1d-11, single)
    A = A0
    B = B0
    matA = c_null_ptr
    matB = c_null_ptr
    matC = c_null_ptr
    matD = c_null_ptr
    plan = c_null_ptr

    ! the library's copies of A and B, and C's row offsets, poisoned
    call set_ints(a_ptr, A%ptr, wide_offsets)
    call set_ints(a_col, A%col, wide_indices)
    call set_reals(a_val, A%val, single)
    call set_ints(b_ptr, B%ptr, wide_offsets)
    call set_ints(b_col, B%col, wide_indices)
    call set_reals(b_val, B%val, single)
    call set_ints(c_offs, spread(POISON_INDEX, 1, int(A%rows) + 1), wide_offsets)
    if (device) then
      if (.not. (upload(da_ptr, a_ptr) .and. upload(da_col, a_col) .and. upload(da_val, a_val) &
                 .and. upload(db_ptr, b_ptr) .and. upload(db_col, b_col) .and. upload(db_val, b_val) &
                 .and. upload(dc_ptr, c_offs))) return
    end if
    if (addend) then
      D = D0
      call set_ints(d_ptr, D%ptr, wide_offsets)
      call set_ints(d_col, D%col, wide_indices)
      call set_reals(d_val, D%val, single)
      if (device) then
        if (.not. (upload(dd_ptr, d_ptr) .and. upload(dd_col, d_col) .and. upload(dd_val, d_val))) &
          return
      end if
      if (.not. ok(spgemmCreateCsr(matD, D%rows, D%cols, size(D%col, kind=c_int64_t), &
                                   lib_array(d_ptr, dd_ptr), lib_array(d_col, dd_col), &
                                   lib_array(d_val, dd_val), offset_type, index_type, &
                                   SPGEMM_INDEX_BASE_ONE, value_type), &
                   label // ": spgemmCreateCsr(D)")) return
      if (.not. device) then
        if (.not. ok(spgemmCsrSetMemoryType(matD, SPGEMM_MEMORY_HOST), label // ": set memory D")) &
          return
      end if
    end if

    if (.not. ok(spgemmCreateCsr(matA, A%rows, A%cols, size(A%col, kind=c_int64_t), &
                                 lib_array(a_ptr, da_ptr), lib_array(a_col, da_col), lib_array(a_val, da_val), &
                                 offset_type, index_type, SPGEMM_INDEX_BASE_ONE, value_type), &
                 label // ": spgemmCreateCsr(A)")) return
    if (.not. ok(spgemmCreateCsr(matB, B%rows, B%cols, size(B%col, kind=c_int64_t), &
                                 lib_array(b_ptr, db_ptr), lib_array(b_col, db_col), lib_array(b_val, db_val), &
                                 offset_type, index_type, SPGEMM_INDEX_BASE_ONE, value_type), &
                 label // ": spgemmCreateCsr(B)")) return
    ! C: row offsets only until nnz(C) is known
    if (.not. ok(spgemmCreateCsr(matC, A%rows, B%cols, 0_c_int64_t, lib_array(c_offs, dc_ptr), &
                                 c_null_ptr, c_null_ptr, offset_type, index_type, &
                                 SPGEMM_INDEX_BASE_ONE, value_type), &
                 label // ": spgemmCreateCsr(C)")) return
    if (.not. device) then
      if (.not. (ok(spgemmCsrSetMemoryType(matA, SPGEMM_MEMORY_HOST), label // ": set memory A") &
                 .and. ok(spgemmCsrSetMemoryType(matB, SPGEMM_MEMORY_HOST), label // ": set memory B") &
                 .and. ok(spgemmCsrSetMemoryType(matC, SPGEMM_MEMORY_HOST), label // ": set memory C"))) &
        return
    end if
    if (ok(spgemmCsrGetMemoryType(matC, memory_got), label // ": spgemmCsrGetMemoryType")) &
      call expect(memory_got == memory, label // ": memory type of C")
    ! a replica set, read back and removed (no plan reads it: device 15 is no part's)
    if (ok(spgemmCsrSetReplica(matA, 15_c_int, lib_array(a_ptr, da_ptr), lib_array(a_col, da_col), &
                               lib_array(a_val, da_val)), label // ": spgemmCsrSetReplica")) then
      if (ok(spgemmCsrGetReplica(matA, 15_c_int, p_ptr, p_col, p_val), &
             label // ": spgemmCsrGetReplica")) &
        call expect(c_associated(p_col, lib_array(a_col, da_col)), label // ": the replica's columns")
      if (ok(spgemmCsrSetReplica(matA, 15_c_int, c_null_ptr, c_null_ptr, c_null_ptr), &
             label // ": spgemmCsrSetReplica (remove)") .and. &
          ok(spgemmCsrGetReplica(matA, 15_c_int, p_ptr, p_col, p_val), &
             label // ": spgemmCsrGetReplica (removed)")) &
        call expect(.not. c_associated(p_ptr), label // ": the replica removed")
    end if

    ! the descriptor gives back what it was created with
    if (ok(spgemmCsrGet(matA, rows_got, cols_got, nnz_got, p_ptr, p_col, p_val, otype_got, &
                        itype_got, base_got, vtype_got), label // ": spgemmCsrGet(A)")) then
      call expect(rows_got == A%rows .and. cols_got == A%cols .and. &
                  nnz_got == size(A%col, kind=c_int64_t), label // ": spgemmCsrGet sizes")
      call expect(c_associated(p_ptr, lib_array(a_ptr, da_ptr)) .and. &
                  c_associated(p_col, lib_array(a_col, da_col)) .and. &
                  c_associated(p_val, lib_array(a_val, da_val)), label // ": spgemmCsrGet pointers")
      call expect(otype_got == offset_type .and. itype_got == index_type .and. &
                  base_got == SPGEMM_INDEX_BASE_ONE .and. vtype_got == value_type, &
                  label // ": spgemmCsrGet types")
    end if

    if (device .and. own_allocator) then
      allocations = 0
      frees = 0
      outstanding = 0
      if (.not. ok(spgemmSetDeviceAllocator(handle, c_funloc(counting_alloc), &
                                            c_funloc(counting_free), c_loc(user_tag)), &
                   label // ": spgemmSetDeviceAllocator")) return
    end if
    if (.not. ok(spgemmResetPeakMemoryUsage(handle), label // ": spgemmResetPeakMemoryUsage")) return

    if (addend) then
      if (.not. ok(spgemmPlanCreateWithAddend(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
                                              SPGEMM_OPERATION_NON_TRANSPOSE, matA, matB, matD, &
                                              matC, value_type), &
                   label // ": spgemmPlanCreateWithAddend")) return
    else
      if (.not. ok(spgemmPlanCreate(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
                                    SPGEMM_OPERATION_NON_TRANSPOSE, matA, matB, matC, value_type), &
                   label // ": spgemmPlanCreate")) return
    end if
    if (.not. ok(spgemmAnalyze(handle, plan), label // ": spgemmAnalyze")) return
    nnzC = -1
    if (.not. ok(spgemmSymbolic(handle, plan, nnzC), label // ": spgemmSymbolic")) return

    if (addend) then
      call reference_product(A, B, alpha1, single, ref, bound, D, beta(1))
    else
      call reference_product(A, B, alpha1, single, ref, bound)
    end if
    call expect(nnzC == size(ref%col, kind=c_int64_t), label // ": nnz(C) from spgemmSymbolic")
    if (ok(spgemmCsrGet(matC, nnz=nnz_got), label // ": spgemmCsrGet(C, nnz)")) &
      call expect(nnz_got == nnzC, label // ": nnz stored in C's descriptor")
    if (nnzC /= size(ref%col, kind=c_int64_t)) return
    if (device) then
      if (.not. download(c_offs, dc_ptr)) return
    end if
    call check_offsets(label, ref, get_ints(c_offs))

    if (device) then
      ! the plan holds device workspace now (the handle's pool or ours)
      if (ok(spgemmGetMemoryUsage(handle, peakBytes=peak), label // ": spgemmGetMemoryUsage")) &
        call expect(peak > 0, label // ": device workspace peak > 0")
    end if

    ! C's column indices and values, poisoned (-777, NaN)
    call set_ints(c_col, spread(POISON_INDEX, 1, int(nnzC)), wide_indices)
    call set_reals(c_val, spread(ieee_value(1d0, ieee_quiet_nan), 1, int(nnzC)), single)
    if (device) then
      if (.not. (upload(dc_col, c_col) .and. upload(dc_val, c_val))) return
    end if
    if (.not. ok(spgemmCsrSetPointers(matC, lib_array(c_offs, dc_ptr), lib_array(c_col, dc_col), &
                                      lib_array(c_val, dc_val)), label // ": spgemmCsrSetPointers")) return

    do round = 1, 2
      if (round == 2) then
        ! new values, same structure: only spgemmNumeric runs again
        call revalue(A, 1000 + int(A%rows))
        call revalue(B, 2000 + int(B%cols))
        call set_reals(a_val, A%val, single)
        call set_reals(b_val, B%val, single)
        if (addend) then
          call revalue(D, 3000 + int(D%cols))
          call set_reals(d_val, D%val, single)
          if (device) then
            if (.not. upload(dd_val, d_val)) return
          end if
        end if
        call set_reals(c_val, spread(ieee_value(1d0, ieee_quiet_nan), 1, int(nnzC)), single)
        call set_ints(c_col, spread(POISON_INDEX, 1, int(nnzC)), wide_indices)
        if (device) then
          if (.not. (upload(da_val, a_val) .and. upload(db_val, b_val) .and. upload(dc_col, c_col) &
                     .and. upload(dc_val, c_val))) return
        else
          ! set_ints reallocated C's column indices: point C at the new array
          if (.not. ok(spgemmCsrSetPointers(matC, host_ptr(c_offs), host_ptr(c_col), &
                                            host_ptr(c_val)), label // ": spgemmCsrSetPointers")) return
        end if
        if (addend) then
          call reference_product(A, B, alpha2, single, ref, bound, D, beta(2))
        else
          call reference_product(A, B, alpha2, single, ref, bound)
        end if
      end if

      ! alpha (and beta) as Fortran reals (both kinds), or as c_loc of them
      if (addend .and. single) then
        alpha_f = real(merge(alpha1, alpha2, round == 1), c_float)
        beta_f = real(beta(round), c_float)
        if (round == 1) then
          if (.not. ok(spgemmNumericWithAddend(handle, plan, alpha_f, beta_f), &
                       label // ": spgemmNumericWithAddend")) return
        else
          if (.not. ok(spgemmNumericWithAddend(handle, plan, c_loc(alpha_f), c_loc(beta_f)), &
                       label // ": spgemmNumericWithAddend")) return
        end if
      else if (addend) then
        alpha_d = merge(alpha1, alpha2, round == 1)
        beta_d = beta(round)
        if (round == 1) then
          if (.not. ok(spgemmNumericWithAddend(handle, plan, alpha_d, beta_d), &
                       label // ": spgemmNumericWithAddend")) return
        else
          if (.not. ok(spgemmNumericWithAddend(handle, plan, c_loc(alpha_d), c_loc(beta_d)), &
                       label // ": spgemmNumericWithAddend")) return
        end if
      else if (single) then
        alpha_f = real(merge(alpha1, alpha2, round == 1), c_float)
        if (round == 1) then
          if (.not. ok(spgemmNumeric(handle, plan, alpha_f), label // ": spgemmNumeric")) return
        else
          if (.not. ok(spgemmNumeric(handle, plan, c_loc(alpha_f)), label // ": spgemmNumeric")) return
        end if
      else
        alpha_d = merge(alpha1, alpha2, round == 1)
        if (round == 1) then
          if (.not. ok(spgemmNumeric(handle, plan, alpha_d), label // ": spgemmNumeric")) return
        else
          if (.not. ok(spgemmNumeric(handle, plan, c_loc(alpha_d)), label // ": spgemmNumeric")) return
        end if
      end if
      if (device) then
        if (.not. cuda_ok(cudaDeviceSynchronize(), label // ": cudaDeviceSynchronize")) return
        if (.not. (download(c_col, dc_col) .and. download(c_val, dc_val) &
                   .and. download(c_offs, dc_ptr))) return
      end if
      call check_offsets(label // merge(" (numeric 1)", " (numeric 2)", round == 1), ref, &
                         get_ints(c_offs))
      call check_entries(label // merge(" (numeric 1)", " (numeric 2)", round == 1), ref, bound, &
                         rtol, get_ints(c_col), get_reals(c_val))
    end do

    if (.not. ok(spgemmPlanDestroy(plan), label // ": spgemmPlanDestroy")) return
    if (device) then
      if (ok(spgemmGetMemoryUsage(handle, current, peak), label // ": spgemmGetMemoryUsage")) &
        call expect(current == 0 .and. peak > 0, label // ": workspace given back at spgemmPlanDestroy")
    end if
    if (device .and. own_allocator) then
      if (.not. cuda_ok(cudaDeviceSynchronize(), label // ": cudaDeviceSynchronize")) return
      call expect(allocations > 0, label // ": the Fortran allocator was used")
      call expect(frees == allocations .and. outstanding == 0, &
                  label // ": everything the Fortran allocator gave came back")
      call expect(.not. foreign_user, label // ": callbacks got the user pointer")
      if (.not. ok(spgemmSetDeviceAllocator(handle, c_null_funptr, c_null_funptr, c_null_ptr), &
                   label // ": spgemmSetDeviceAllocator(NULL)")) return
    end if
    if (.not. (ok(spgemmDestroyMatrix(matA), label // ": spgemmDestroyMatrix") &
               .and. ok(spgemmDestroyMatrix(matB), label // ": spgemmDestroyMatrix") &
               .and. ok(spgemmDestroyMatrix(matC), label // ": spgemmDestroyMatrix") &
               .and. ok(spgemmDestroyMatrix(matD), label // ": spgemmDestroyMatrix"))) return
    if (device) then
      call release(da_ptr); call release(da_col); call release(da_val)
      call release(db_ptr); call release(db_col); call release(db_val)
      call release(dc_ptr); call release(dc_col); call release(dc_val)
      call release(dd_ptr); call release(dd_col); call release(dd_val)
    end if
    print '(a,a,i0,a)', label, ": OK (nnz(C) = ", nnzC, ")"

  contains

    ! The array the library gets: the device copy for device matrices, the
    ! host array otherwise.
    function lib_array(h, d) result(p)
      type(host_buf), intent(in), target :: h
      type(dev_buf), intent(in) :: d
      type(c_ptr) :: p
      if (device) then
        p = d%p
      else
        p = host_ptr(h)
      end if
    end function lib_array
  end subroutine run_product

end module product_case

! ---- the program ------------------------------------------------------------------
program test_fortran
  use, intrinsic :: iso_c_binding
  use spgemm
  use cuda_rt
  use test_support
  use product_case
  use fortran_allocator, only: dummy_free
  implicit none
  character(len=16) :: mode
  logical :: run_host, run_gpu, gpu_skipped
  integer :: failures_before

  mode = "all"
  if (command_argument_count() >= 1) call get_command_argument(1, mode)
  run_host = mode == "all" .or. mode == "host"
  run_gpu = mode == "all" .or. mode == "gpu"
  if (.not. (run_host .or. run_gpu)) then
    print '(a)', "usage: test_fortran [host|gpu]"
    error stop 2
  end if

  gpu_skipped = .false.
  if (run_host) then
    failures_before = failures
    call api_checks()
    call products(SPGEMM_MEMORY_HOST)
    if (failures == failures_before) then
      print '(a)', "host part: PASSED"
    else
      print '(a)', "host part: FAILED"
    end if
  end if
  if (run_gpu) then
    if (gpu_present()) then
      failures_before = failures
      call products(SPGEMM_MEMORY_DEVICE)
      if (failures == failures_before) then
        print '(a)', "GPU part: PASSED"
      else
        print '(a)', "GPU part: FAILED"
      end if
    else
      gpu_skipped = .true.
    end if
  end if

  if (failures > 0) then
    print '(a,i0,a)', "test_fortran: FAILED (", failures, " failed checks)"
    error stop 1
  end if
  if (gpu_skipped .and. .not. run_host) stop 77   ! CTest: skipped
  print '(a)', "test_fortran: OK"

contains

  logical function gpu_present()
    integer(c_int) :: count, err
    count = 0
    err = cudaGetDeviceCount(count)
    gpu_present = err == cudaSuccess .and. count > 0
    if (err /= cudaSuccess) then
      print '(2a)', "SKIPPED: no GPU (cudaGetDeviceCount: ", &
          spgemm_c_string(cudaGetErrorString(err)) // ")"
    else if (count == 0) then
      print '(a)', "SKIPPED: no GPU (no CUDA device found)"
    end if
  end function gpu_present

  ! The same products on host or device memory.
  subroutine products(memory)
    integer(c_int), intent(in) :: memory
    type(c_ptr) :: handle
    type(csr) :: L, R, P, X, Y, S, T
    character(len=:), allocatable :: space
    integer(c_int) :: enabled
    logical :: device
    device = memory == SPGEMM_MEMORY_DEVICE
    space = trim(merge("device", "host  ", device))
    if (.not. ok(spgemmCreate(handle), "spgemmCreate")) return
    if (.not. ok(spgemmSetStream(handle, c_null_ptr), "spgemmSetStream")) return

    L = laplacian_2d(8, 6, 1)            ! 48 x 48, unsorted rows
    R = scattered(48, 17, 4, 2)          ! 48 x 17, some rows empty
    P = scattered(13, 48, 6, 3)          ! 13 x 48
    X = scattered(300, 400, 30, 4)       ! longer rows of C
    Y = scattered(400, 250, 30, 5)
    S = scattered(48, 17, 6, 9)          ! addends with the shapes of L*R and P*L
    T = scattered(13, 48, 9, 10)

    call run_product(space // " L*L 48x48 (32-bit, double)", handle, L, L, memory, &
                     .false., .false., .false., 1d0, -2.5d0, .false.)
    call run_product(space // " L*R 48x48 * 48x17 (64-bit offsets and indices, double)", &
                     handle, L, R, memory, .true., .true., .false., -2.5d0, 1d0, .false.)
    call run_product(space // " P*L 13x48 * 48x48 (64-bit offsets, 32-bit indices, float)", &
                     handle, P, L, memory, .true., .false., .true., 1d0, -2.5d0, device)
    ! input checks off for this one (the inputs are valid)
    if (.not. ok(spgemmSetInputChecks(handle, 0), "spgemmSetInputChecks(0)")) return
    if (ok(spgemmGetInputChecks(handle, enabled), "spgemmGetInputChecks")) &
      call expect(enabled == 0, "input checks off")
    call run_product(space // " X*Y 300x400 * 400x250 (32-bit, float, input checks off)", &
                     handle, X, Y, memory, .false., .false., .true., -2.5d0, 1d0, .false.)
    if (.not. ok(spgemmSetInputChecks(handle, 1), "spgemmSetInputChecks(1)")) return
    ! atomic adds in any order for this one (results within the tolerance)
    if (.not. ok(spgemmSetDeterministic(handle, 0), "spgemmSetDeterministic(0)")) return
    if (ok(spgemmGetDeterministic(handle, enabled), "spgemmGetDeterministic")) &
      call expect(enabled == 0, "deterministic off")
    call run_product(space // " X*Y 300x400 * 400x250 (64-bit, double, not deterministic)", &
                     handle, X, Y, memory, .true., .true., .false., 1d0, -2.5d0, .false.)
    if (.not. ok(spgemmSetDeterministic(handle, 1), "spgemmSetDeterministic(1)")) return
    ! C = alpha * A * B + beta * D, C's pattern the union of both
    call run_product(space // " L*R + D 48x17 (32-bit, double)", handle, L, R, memory, &
                     .false., .false., .false., 1d0, -2.5d0, .false., S)
    call run_product(space // " P*L + D 13x48 (64-bit, float)", handle, P, L, memory, &
                     .true., .true., .true., -2.5d0, 1d0, .false., T)
    if (.not. ok(spgemmDestroy(handle), "spgemmDestroy")) return
  end subroutine products

  ! The rest of the module on the host: version, names and messages,
  ! settings, a rejected plan and a rejected one-based structure.
  subroutine api_checks()
    type(c_ptr) :: handle, stream, matA, matB, matC, plan
    integer(c_int) :: version, enabled
    integer(c_int32_t), target :: ptr0(3), col(2), cptr(3), bptr(4)
    real(c_double), target :: val(2)
    integer(c_int64_t) :: nnzC
    integer(c_size_t) :: bytes
    character(len=:), allocatable :: message
    integer(c_int) :: devices(2), parts, part_device(2)
    integer(c_int64_t) :: first_row(2), part_rows(2), products(2)
    real(c_float) :: numeric_ms(2)
    real(c_double) :: shares(2)
    type(spgemm_row_block) :: blocks(1)
    integer(c_int) :: block_count

    if (ok(spgemmGetVersion(version), "spgemmGetVersion")) &
      call expect(version == SPGEMM_VERSION, "spgemmGetVersion = SPGEMM_VERSION")
    call expect(spgemm_error_name(SPGEMM_STATUS_INVALID_VALUE) == "SPGEMM_STATUS_INVALID_VALUE", &
                "spgemm_error_name")
    call expect(spgemm_error_name(SPGEMM_STATUS_NO_DEVICE) == "SPGEMM_STATUS_NO_DEVICE", &
                "spgemm_error_name(NO_DEVICE)")
    call expect(spgemm_error_string(SPGEMM_STATUS_SUCCESS) == "success", "spgemm_error_string")
    call expect(spgemm_c_string(c_null_ptr) == "", "spgemm_c_string(NULL)")

    if (.not. ok(spgemmCreate(handle), "spgemmCreate")) return
    if (ok(spgemmGetStream(handle, stream), "spgemmGetStream")) &
      call expect(.not. c_associated(stream), "default stream is 0")
    if (ok(spgemmGetInputChecks(handle, enabled), "spgemmGetInputChecks")) &
      call expect(enabled == 1, "input checks on by default")
    if (ok(spgemmGetDeterministic(handle, enabled), "spgemmGetDeterministic")) &
      call expect(enabled == 1, "deterministic by default")
    if (expect_status(spgemmSetDeviceAllocator(handle, c_null_funptr, c_funloc(dummy_free), &
                                               c_null_ptr), SPGEMM_STATUS_INVALID_VALUE, &
                      "spgemmSetDeviceAllocator with one NULL")) continue
    if (expect_status(spgemmGetMemoryUsage(handle), SPGEMM_STATUS_INVALID_VALUE, &
                      "spgemmGetMemoryUsage without outputs")) continue
    ! several GPUs and C on the host: the settings, without a GPU too
    devices = -1
    if (ok(spgemmSetDevices(handle, 0_c_int, devices), "spgemmSetDevices(0)")) continue
    parts = -1
    if (ok(spgemmGetDevices(handle, 2_c_int, devices, parts), "spgemmGetDevices")) &
      call expect(parts == 0, "no devices set")
    if (expect_status(spgemmSetDevices(handle, SPGEMM_MAX_DEVICES + 1_c_int, devices), &
                      SPGEMM_STATUS_INVALID_VALUE, "spgemmSetDevices(17)")) continue
    shares = [1d0, 2d0]
    if (expect_status(spgemmSetPartitionShares(handle, 2_c_int, shares), &
                      SPGEMM_STATUS_INVALID_VALUE, "spgemmSetPartitionShares without devices")) continue
    if (ok(spgemmSetPartitionMinProducts(handle, 0_c_int64_t), "spgemmSetPartitionMinProducts")) continue
    if (ok(spgemmSetOutputChunkBytes(handle, 4096_c_size_t), "spgemmSetOutputChunkBytes")) then
      if (ok(spgemmGetOutputChunkBytes(handle, bytes), "spgemmGetOutputChunkBytes")) &
        call expect(bytes == 4096, "the chunk bound set")
    end if
    ! C left distributed: off by default; the flag round trip (restored to 0)
    call expect(SPGEMM_HOST_DEVICE == -1, "SPGEMM_HOST_DEVICE = -1")
    if (c_sizeof(c_null_ptr) == 8) &
      call expect(c_sizeof(blocks(1)) == 56, "spgemm_row_block has spgemmRowBlock_t's 56 bytes")
    enabled = -1
    if (ok(spgemmGetOutputDistributed(handle, enabled), "spgemmGetOutputDistributed")) &
      call expect(enabled == 0, "C not distributed by default")
    if (ok(spgemmSetOutputDistributed(handle, 1_c_int), "spgemmSetOutputDistributed(1)")) then
      if (ok(spgemmGetOutputDistributed(handle, enabled), "spgemmGetOutputDistributed")) &
        call expect(enabled == 1, "C distributed once set")
    end if
    if (ok(spgemmSetOutputDistributed(handle, 0_c_int), "spgemmSetOutputDistributed(0)")) then
      if (ok(spgemmGetOutputDistributed(handle, enabled), "spgemmGetOutputDistributed")) &
        call expect(enabled == 0, "C not distributed once reset")
    end if

    ! 2 x 2, one-based, but its row offsets start at 0: the input checks
    ! reject it at spgemmAnalyze
    ptr0 = [0, 1, 2]
    col = [1, 2]
    val = [1d0, 2d0]
    cptr = -777
    if (.not. ok(spgemmCreateCsr(matA, 2_c_int64_t, 2_c_int64_t, 2_c_int64_t, c_loc(ptr0), &
                                 c_loc(col), c_loc(val), SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                                 SPGEMM_INDEX_BASE_ONE, CUDA_R_64F), "spgemmCreateCsr")) return
    if (.not. ok(spgemmCreateCsr(matC, 2_c_int64_t, 2_c_int64_t, 0_c_int64_t, c_loc(cptr), &
                                 c_null_ptr, c_null_ptr, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                                 SPGEMM_INDEX_BASE_ONE, CUDA_R_64F), "spgemmCreateCsr")) return
    if (.not. (ok(spgemmCsrSetMemoryType(matA, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType") .and. &
               ok(spgemmCsrSetMemoryType(matC, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType"))) return
    if (.not. ok(spgemmPlanCreate(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
                                  SPGEMM_OPERATION_NON_TRANSPOSE, matA, matA, matC, CUDA_R_64F), &
                 "spgemmPlanCreate")) return
    ! host memory: no device workspace; a buffer is taken only before the analysis
    bytes = 1
    if (ok(spgemmPlanGetWorkspaceSize(handle, plan, bytes), "spgemmPlanGetWorkspaceSize")) &
      call expect(bytes == 0, "a host plan needs no device workspace")
    if (ok(spgemmPlanSetWorkspace(handle, plan, c_null_ptr, 0_c_size_t), &
           "spgemmPlanSetWorkspace(NULL, 0)")) continue
    if (expect_status(spgemmAnalyze(handle, plan), SPGEMM_STATUS_INVALID_VALUE, &
                      "spgemmAnalyze of one-based offsets starting at 0")) then
      message = spgemm_last_error_message()
      call expect(index(message, "spgemmAnalyze: ") == 1, &
                  "last error message names spgemmAnalyze: '" // message // "'")
    end if
    if (expect_status(spgemmPlanSetWorkspace(handle, plan, c_null_ptr, 0_c_size_t), &
                      SPGEMM_STATUS_INVALID_STATE, "spgemmPlanSetWorkspace after spgemmAnalyze")) continue
    if (expect_status(spgemmNumeric(handle, plan, 1d0), SPGEMM_STATUS_INVALID_STATE, &
                      "spgemmNumeric before spgemmSymbolic")) continue
    ! fixed: the same plan goes through
    ptr0 = [1, 2, 3]
    if (ok(spgemmSymbolic(handle, plan, nnzC), "spgemmSymbolic after fixing the offsets")) then
      call expect(nnzC == 2 .and. all(cptr == [1, 2, 3]), "one-based diagonal product's offsets")
    end if
    ! a host plan runs whole, on the host
    if (ok(spgemmPlanGetPartition(handle, plan, 2_c_int, parts, part_device, first_row, &
                                  part_rows, products, numeric_ms), "spgemmPlanGetPartition")) &
      call expect(parts == 1 .and. part_device(1) == -1 .and. first_row(1) == 0 .and. &
                  part_rows(1) == 2, "a host plan's partition: one part, the host, both rows")
    ! its C is not distributed: no row blocks (blocks absent is NULL, with capacity 0)
    if (expect_status(spgemmPlanGetRowBlocks(handle, plan, 0_c_int, count=block_count), &
                      SPGEMM_STATUS_INVALID_STATE, &
                      "spgemmPlanGetRowBlocks(NULL) of a C not distributed")) continue
    if (expect_status(spgemmPlanGetRowBlocks(handle, plan, 1_c_int, blocks, block_count), &
                      SPGEMM_STATUS_INVALID_STATE, &
                      "spgemmPlanGetRowBlocks of a C not distributed")) continue
    if (expect_status(spgemmPlanGetRowBlocks(handle, plan, 1_c_int, count=block_count), &
                      SPGEMM_STATUS_INVALID_VALUE, &
                      "spgemmPlanGetRowBlocks(NULL, capacity 1)")) continue
    if (.not. ok(spgemmPlanDestroy(plan), "spgemmPlanDestroy")) return

    ! an operation that does not exist
    if (expect_status(spgemmPlanCreate(handle, plan, 7_c_int, SPGEMM_OPERATION_NON_TRANSPOSE, &
                                       matA, matA, matC, CUDA_R_64F), &
                      SPGEMM_STATUS_INVALID_VALUE, "spgemmPlanCreate(opA = 7)")) continue
    ! shapes that do not match: 2 x 2 times 3 x 2 (no entries)
    bptr = 1
    if (.not. ok(spgemmCreateCsr(matB, 3_c_int64_t, 2_c_int64_t, 0_c_int64_t, c_loc(bptr), &
                                 c_null_ptr, c_null_ptr, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                                 SPGEMM_INDEX_BASE_ONE, CUDA_R_64F), "spgemmCreateCsr")) return
    if (.not. ok(spgemmCsrSetMemoryType(matB, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType")) return
    if (expect_status(spgemmPlanCreate(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
                                       SPGEMM_OPERATION_NON_TRANSPOSE, matA, matB, matC, CUDA_R_64F), &
                      SPGEMM_STATUS_INVALID_VALUE, "spgemmPlanCreate(A.cols /= B.rows)")) then
      message = spgemm_last_error_message()
      call expect(index(message, "spgemmPlanCreate: ") == 1, &
                  "last error message names spgemmPlanCreate: '" // message // "'")
    end if
    if (expect_status(spgemmCreateCsr(matB, -1_c_int64_t, 2_c_int64_t, 0_c_int64_t, c_null_ptr, &
                                      c_null_ptr, c_null_ptr, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                                      SPGEMM_INDEX_BASE_ONE, CUDA_R_64F) , SPGEMM_STATUS_INVALID_VALUE, &
                      "spgemmCreateCsr(rows = -1)")) continue
    if (expect_status(spgemmDestroyMatrix(c_null_ptr), SPGEMM_STATUS_SUCCESS, &
                      "spgemmDestroyMatrix(NULL)")) continue
    if (.not. (ok(spgemmDestroyMatrix(matA), "spgemmDestroyMatrix") .and. &
               ok(spgemmDestroyMatrix(matB), "spgemmDestroyMatrix") .and. &
               ok(spgemmDestroyMatrix(matC), "spgemmDestroyMatrix"))) return
    call complex_product(handle, .false.)
    call complex_product(handle, .true.)
    if (.not. ok(spgemmDestroy(handle), "spgemmDestroy")) return
    print '(a)', "host API checks: OK"
  end subroutine api_checks

  ! C = i * A * A for a 2 x 2 complex matrix, one-based, on the host, with
  ! alpha passed as a Fortran complex (exact: small integers). Skipped, with
  ! a message, where this libspgemm does not compute on complex values.
  ! The library wants complex values aligned to their full size (16 bytes
  ! for complex(c_double_complex)), more than Fortran guarantees for a local
  ! array: allocatable arrays (malloc, 16-byte aligned) are used.
  !   A = | 1+i   0 |    i A A = | -2      0 |
  !       | 2i    3 |            | -8-2i  9i |
  subroutine complex_product(handle, single)
    type(c_ptr), intent(in) :: handle
    logical, intent(in) :: single
    integer(c_int32_t), target :: a_ptr(3), a_col(3), c_ptr3(3), c_col(3)
    complex(c_double_complex), allocatable, target :: a_z(:), c_z(:)
    complex(c_float_complex), allocatable, target :: a_c(:), c_c(:)
    complex(c_double_complex), parameter :: want(3) = &
        [(-2d0, 0d0), (-8d0, -2d0), (0d0, 9d0)]
    type(c_ptr) :: matA, matC, plan, values_a, values_c
    integer(c_int) :: value_type, status
    integer(c_int64_t) :: nnzC
    character(len=*), parameter :: names(2) = ["complex double", "complex float "]
    character(len=:), allocatable :: name

    name = trim(names(merge(2, 1, single)))
    allocate(a_z(3), c_z(3), a_c(3), c_c(3))
    a_ptr = [1, 2, 4]
    a_col = [1, 1, 2]
    a_z = [(1d0, 1d0), (0d0, 2d0), (3d0, 0d0)]
    a_c = cmplx(a_z, kind=c_float_complex)
    c_ptr3 = -777
    c_col = -777
    c_z = (-777d0, -777d0)
    c_c = (-777.0, -777.0)
    if (single) then
      value_type = CUDA_C_32F
      values_a = c_loc(a_c)
      values_c = c_loc(c_c)
    else
      value_type = CUDA_C_64F
      values_a = c_loc(a_z)
      values_c = c_loc(c_z)
    end if
    if (.not. ok(spgemmCreateCsr(matA, 2_c_int64_t, 2_c_int64_t, 3_c_int64_t, c_loc(a_ptr), &
                                 c_loc(a_col), values_a, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                                 SPGEMM_INDEX_BASE_ONE, value_type), name // ": spgemmCreateCsr")) return
    if (.not. ok(spgemmCreateCsr(matC, 2_c_int64_t, 2_c_int64_t, 0_c_int64_t, c_loc(c_ptr3), &
                                 c_null_ptr, c_null_ptr, SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, &
                                 SPGEMM_INDEX_BASE_ONE, value_type), name // ": spgemmCreateCsr")) return
    if (.not. (ok(spgemmCsrSetMemoryType(matA, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType") .and. &
               ok(spgemmCsrSetMemoryType(matC, SPGEMM_MEMORY_HOST), "spgemmCsrSetMemoryType"))) return
    status = spgemmPlanCreate(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
                              SPGEMM_OPERATION_NON_TRANSPOSE, matA, matA, matC, value_type)
    if (status == SPGEMM_STATUS_NOT_SUPPORTED) then
      print '(3a)', name, " values: not computed on by this libspgemm (skipped): ", &
          spgemm_last_error_message()
    else if (ok(status, name // ": spgemmPlanCreate")) then
      if (ok(spgemmSymbolic(handle, plan, nnzC), name // ": spgemmSymbolic")) then
        call expect(nnzC == 3 .and. all(c_ptr3 == [1, 2, 4]), name // ": structure of C")
        if (nnzC == 3) then
          if (ok(spgemmCsrSetPointers(matC, c_loc(c_ptr3), c_loc(c_col), values_c), &
                 name // ": spgemmCsrSetPointers")) then
            if (single) then
              status = spgemmNumeric(handle, plan, (0.0_c_float, 1.0_c_float))
            else
              status = spgemmNumeric(handle, plan, (0.0_c_double, 1.0_c_double))
            end if
            if (ok(status, name // ": spgemmNumeric")) then
              call expect(all(c_col == [1, 1, 2]), name // ": columns of C")
              if (single) then
                call expect(all(c_c == cmplx(want, kind=c_float_complex)), name // ": values of C")
              else
                call expect(all(c_z == want), name // ": values of C")
              end if
              print '(2a)', name, " values (alpha = i): checked"
            end if
          end if
        end if
      end if
      if (ok(spgemmPlanDestroy(plan), "spgemmPlanDestroy")) continue
    end if
    if (.not. (ok(spgemmDestroyMatrix(matA), "spgemmDestroyMatrix") .and. &
               ok(spgemmDestroyMatrix(matC), "spgemmDestroyMatrix"))) return
  end subroutine complex_product

end program test_fortran
