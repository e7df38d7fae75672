! SPDX-License-Identifier: Apache-2.0
! libspgemm - Fortran interface (ISO_C_BINDING) to the C API of
! include/spgemm/spgemm.h. See docs/fortran.md and docs/api.md.
!
!   use spgemm
!   type(c_ptr) :: handle, A, B, C, plan
!   integer(c_int64_t) :: nnzC
!   status = spgemmCreate(handle)
!   status = spgemmCreateCsr(A, m, k, nnzA, c_loc(a_ptr), c_loc(a_col), c_loc(a_val), &
!                            SPGEMM_INDEX_32I, SPGEMM_INDEX_32I, SPGEMM_INDEX_BASE_ONE, CUDA_R_64F)
!   ... (B; C with its row offsets only) ...
!   status = spgemmPlanCreate(handle, plan, SPGEMM_OPERATION_NON_TRANSPOSE, &
!                             SPGEMM_OPERATION_NON_TRANSPOSE, A, B, C, CUDA_R_64F)
!   status = spgemmSymbolic(handle, plan, nnzC)   ! writes C's row offsets
!   (allocate nnzC column indices and values)
!   status = spgemmCsrSetPointers(C, c_loc(c_rowptr), c_loc(c_col), c_loc(c_val))
!   status = spgemmNumeric(handle, plan, 1.0_c_double)
!
! Conventions of this binding:
! - Every C function has an interface of the same name returning the C
!   status as integer(c_int); compare with the SPGEMM_STATUS_* parameters.
!   spgemmNumeric and spgemmNumericWithAddend are generic: alpha and beta
!   may be real or complex values of the compute type's kind, or type(c_ptr)
!   (the C functions themselves are spgemmNumeric_ptr and
!   spgemmNumericWithAddend_ptr).
! - Handles, plans and descriptors are type(c_ptr) (opaque C pointers).
! - Array arguments are type(c_ptr), passed by value: c_loc(array) for host
!   arrays (declare them with the target attribute, and keep them alive and
!   in place while a descriptor points at them), or a device pointer (from
!   cudaMalloc) for device matrices. The library never copies or owns them.
! - C enumerations are integer(c_int) parameters with the values of the
!   header. cudaDataType values are included (CUDA_R_32F, ...); rename them
!   on use if another module defines the same names:
!   use spgemm, spgemm_r64 => CUDA_R_64F
! - const char* results: the interfaces return type(c_ptr); the functions
!   spgemm_error_name, spgemm_error_string and spgemm_last_error_message
!   return Fortran strings.
! - Optional outputs of spgemmCsrGet and spgemmGetMemoryUsage, and the
!   blocks of spgemmPlanGetRowBlocks, are Fortran optional arguments: an
!   absent one is passed as NULL.
! - spgemmRowBlock_t is the BIND(C) derived type spgemm_row_block.
!
! The compiled spgemm.mod is specific to the compiler (and its version) that
! built it; this file can be compiled by any Fortran 2018 compiler (it uses
! optional arguments in BIND(C) interfaces, from TS 29113).
module spgemm
  use, intrinsic :: iso_c_binding
  implicit none
  private :: c_strlen

  ! ---- version (SPGEMM_VERSION = MAJOR * 10000 + MINOR * 100 + PATCH) -----
  integer(c_int), parameter :: SPGEMM_VERSION_MAJOR = 0
  integer(c_int), parameter :: SPGEMM_VERSION_MINOR = 5
  integer(c_int), parameter :: SPGEMM_VERSION_PATCH = 0
  integer(c_int), parameter :: SPGEMM_VERSION = &
      SPGEMM_VERSION_MAJOR * 10000 + SPGEMM_VERSION_MINOR * 100 + SPGEMM_VERSION_PATCH

  ! ---- spgemmStatus_t --------------------------------------------------------
  integer(c_int), parameter :: SPGEMM_STATUS_SUCCESS = 0
  integer(c_int), parameter :: SPGEMM_STATUS_NOT_INITIALIZED = 1   ! null handle / plan / descriptor
  integer(c_int), parameter :: SPGEMM_STATUS_ALLOC_FAILED = 2      ! host or device allocation failed
  integer(c_int), parameter :: SPGEMM_STATUS_INVALID_VALUE = 3     ! a bad argument
  integer(c_int), parameter :: SPGEMM_STATUS_NOT_SUPPORTED = 4     ! valid, but not implemented
  integer(c_int), parameter :: SPGEMM_STATUS_EXECUTION_FAILED = 5  ! a CUDA launch or call failed
  integer(c_int), parameter :: SPGEMM_STATUS_INTERNAL_ERROR = 6    ! a bug in libspgemm
  integer(c_int), parameter :: SPGEMM_STATUS_INVALID_STATE = 7     ! phases called out of order
  integer(c_int), parameter :: SPGEMM_STATUS_INDEX_OVERFLOW = 8    ! result does not fit the index type
  integer(c_int), parameter :: SPGEMM_STATUS_NO_DEVICE = 9         ! device work asked, no usable GPU

  ! ---- spgemmOperation_t -----------------------------------------------------
  integer(c_int), parameter :: SPGEMM_OPERATION_NON_TRANSPOSE = 0
  integer(c_int), parameter :: SPGEMM_OPERATION_TRANSPOSE = 1
  integer(c_int), parameter :: SPGEMM_OPERATION_CONJUGATE_TRANSPOSE = 2

  ! ---- spgemmIndexType_t -----------------------------------------------------
  integer(c_int), parameter :: SPGEMM_INDEX_32I = 1  ! integer(c_int32_t) arrays
  integer(c_int), parameter :: SPGEMM_INDEX_64I = 2  ! integer(c_int64_t) arrays

  ! ---- spgemmIndexBase_t -----------------------------------------------------
  integer(c_int), parameter :: SPGEMM_INDEX_BASE_ZERO = 0
  integer(c_int), parameter :: SPGEMM_INDEX_BASE_ONE = 1   ! Fortran-style CSR

  ! ---- spgemmMemoryType_t ----------------------------------------------------
  integer(c_int), parameter :: SPGEMM_MEMORY_DEVICE = 0    ! GPU backend (the default)
  integer(c_int), parameter :: SPGEMM_MEMORY_HOST = 1      ! multithreaded CPU backend

  ! ---- several GPUs, C larger than the GPU (docs/scaling.md) --------------------
  integer(c_int), parameter :: SPGEMM_MAX_DEVICES = 16
  integer(c_int), parameter :: SPGEMM_HOST_DEVICE = -1   ! the host as a part (CPU+GPU hybrid)

  ! One row block of a distributed C (spgemmSetOutputDistributed,
  ! spgemmPlanGetRowBlocks): rows [firstRow, firstRow + rows) of C, zero-based
  ! as in C, a CSR matrix of its own with C's types and index base, on
  ! `device` (SPGEMM_HOST_DEVICE: host memory). The arrays belong to the plan.
  type, bind(C) :: spgemm_row_block
    integer(c_int) :: device
    integer(c_int64_t) :: firstRow
    integer(c_int64_t) :: rows
    integer(c_int64_t) :: nnz
    type(c_ptr) :: rowOffsets   ! rows + 1 entries, from the index base
    type(c_ptr) :: colInd       ! nnz entries, sorted in every row
    type(c_ptr) :: values       ! nnz entries
  end type spgemm_row_block

  ! ---- cudaDataType (library_types.h): the types spgemmCreateCsr accepts ------
  ! Fortran kinds: CUDA_R_32F real(c_float), CUDA_R_64F real(c_double),
  ! CUDA_C_32F complex(c_float_complex), CUDA_C_64F complex(c_double_complex).
  ! Which of them are computed on is decided by spgemmPlanCreate.
  integer(c_int), parameter :: CUDA_R_32F = 0
  integer(c_int), parameter :: CUDA_R_64F = 1
  integer(c_int), parameter :: CUDA_R_16F = 2
  integer(c_int), parameter :: CUDA_R_8I = 3
  integer(c_int), parameter :: CUDA_C_32F = 4
  integer(c_int), parameter :: CUDA_C_64F = 5
  integer(c_int), parameter :: CUDA_C_16F = 6
  integer(c_int), parameter :: CUDA_C_8I = 7
  integer(c_int), parameter :: CUDA_R_32I = 10
  integer(c_int), parameter :: CUDA_C_32I = 11
  integer(c_int), parameter :: CUDA_R_16BF = 14
  integer(c_int), parameter :: CUDA_C_16BF = 15

  ! ---- the caller's device allocator (spgemmSetDeviceAllocator) --------------
  ! Templates for the two callbacks: write BIND(C) procedures with these
  ! arguments and pass c_funloc(my_alloc), c_funloc(my_free). alloc stores a
  ! device pointer of `bytes` bytes in ptr and returns 0, or returns non-zero
  ! when it has no memory. stream is a cudaStream_t.
  abstract interface
    function spgemm_device_alloc_fn(user, ptr, bytes, stream) bind(C) result(rc)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: user
      type(c_ptr), intent(out) :: ptr
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: stream
      integer(c_int) :: rc
    end function spgemm_device_alloc_fn

    subroutine spgemm_device_free_fn(user, ptr, bytes, stream) bind(C)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: user
      type(c_ptr), value :: ptr
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: stream
    end subroutine spgemm_device_free_fn
  end interface

  interface
    ! ---- library and handle --------------------------------------------------
    function spgemmGetVersion(version) bind(C, name="spgemmGetVersion") result(status)
      import :: c_int
      integer(c_int), intent(out) :: version
      integer(c_int) :: status
    end function spgemmGetVersion

    ! const char* (static strings); see spgemm_error_name / spgemm_error_string
    function spgemmGetErrorName(status) bind(C, name="spgemmGetErrorName") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: str
    end function spgemmGetErrorName

    function spgemmGetErrorString(status) bind(C, name="spgemmGetErrorString") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: str
    end function spgemmGetErrorString

    ! Detail of the last failed call on this thread; see spgemm_last_error_message
    function spgemmGetLastErrorMessage() bind(C, name="spgemmGetLastErrorMessage") result(str)
      import :: c_ptr
      type(c_ptr) :: str
    end function spgemmGetLastErrorMessage

    function spgemmCreate(handle) bind(C, name="spgemmCreate") result(status)
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: handle
      integer(c_int) :: status
    end function spgemmCreate

    function spgemmDestroy(handle) bind(C, name="spgemmDestroy") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int) :: status
    end function spgemmDestroy

    ! stream: a cudaStream_t (c_null_ptr is the default stream)
    function spgemmSetStream(handle, stream) bind(C, name="spgemmSetStream") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      type(c_ptr), value :: stream
      integer(c_int) :: status
    end function spgemmSetStream

    function spgemmGetStream(handle, stream) bind(C, name="spgemmGetStream") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      type(c_ptr), intent(out) :: stream
      integer(c_int) :: status
    end function spgemmGetStream

    ! Device workspace held now and its peak, in bytes (either may be absent)
    function spgemmGetMemoryUsage(handle, currentBytes, peakBytes) &
        bind(C, name="spgemmGetMemoryUsage") result(status)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: handle
      integer(c_size_t), intent(out), optional :: currentBytes
      integer(c_size_t), intent(out), optional :: peakBytes
      integer(c_int) :: status
    end function spgemmGetMemoryUsage

    function spgemmResetPeakMemoryUsage(handle) &
        bind(C, name="spgemmResetPeakMemoryUsage") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int) :: status
    end function spgemmResetPeakMemoryUsage

    ! alloc, free: c_funloc of procedures like spgemm_device_alloc_fn and
    ! spgemm_device_free_fn, or both c_null_funptr (back to the handle's pool)
    function spgemmSetDeviceAllocator(handle, alloc, free, user) &
        bind(C, name="spgemmSetDeviceAllocator") result(status)
      import :: c_ptr, c_funptr, c_int
      type(c_ptr), value :: handle
      type(c_funptr), value :: alloc
      type(c_funptr), value :: free
      type(c_ptr), value :: user
      integer(c_int) :: status
    end function spgemmSetDeviceAllocator

    ! enabled: 1 = on (the default), 0 = off
    function spgemmSetInputChecks(handle, enabled) bind(C, name="spgemmSetInputChecks") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: enabled
      integer(c_int) :: status
    end function spgemmSetInputChecks

    function spgemmGetInputChecks(handle, enabled) bind(C, name="spgemmGetInputChecks") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: enabled
      integer(c_int) :: status
    end function spgemmGetInputChecks

    ! Debug option, enabled: 1 = on, 0 = off (the default): every numeric
    ! phase checks that the structure of A, B (and D) is the one analyzed
    ! (SPGEMM_STATUS_INVALID_VALUE otherwise); one pass and one sync per call.
    function spgemmSetStructureVerification(handle, enabled) &
        bind(C, name="spgemmSetStructureVerification") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: enabled
      integer(c_int) :: status
    end function spgemmSetStructureVerification

    ! Numeric phases add every entry's terms in a fixed order, so results are
    ! the same bits in every run, whatever enabled holds (default 1; 0 is
    ! accepted, read back, and changes no result).
    function spgemmSetDeterministic(handle, enabled) bind(C, name="spgemmSetDeterministic") &
        result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: enabled
      integer(c_int) :: status
    end function spgemmSetDeterministic

    function spgemmGetDeterministic(handle, enabled) bind(C, name="spgemmGetDeterministic") &
        result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: enabled
      integer(c_int) :: status
    end function spgemmGetDeterministic

    ! Several GPUs: devices(1:count) are ordinals (0-based, as CUDA numbers them).
    function spgemmSetDevices(handle, count, devices) bind(C, name="spgemmSetDevices") &
        result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: count
      integer(c_int), intent(in) :: devices(*)
      integer(c_int) :: status
    end function spgemmSetDevices

    function spgemmGetDevices(handle, capacity, devices, count) bind(C, name="spgemmGetDevices") &
        result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: capacity
      integer(c_int), intent(out) :: devices(*)
      integer(c_int), intent(out) :: count
      integer(c_int) :: status
    end function spgemmGetDevices

    ! count 0 restores equal shares (pass any array: it is not read then).
    function spgemmSetPartitionShares(handle, count, shares) &
        bind(C, name="spgemmSetPartitionShares") result(status)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      integer(c_int), value :: count
      real(c_double), intent(in) :: shares(*)
      integer(c_int) :: status
    end function spgemmSetPartitionShares

    function spgemmSetPartitionMinProducts(handle, minProducts) &
        bind(C, name="spgemmSetPartitionMinProducts") result(status)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: minProducts
      integer(c_int) :: status
    end function spgemmSetPartitionMinProducts

    ! Every array of capacity entries (the C API's NULL outputs are not offered).
    function spgemmPlanGetPartition(handle, plan, capacity, parts, devices, firstRows, rows, &
                                    products, numericMs) &
        bind(C, name="spgemmPlanGetPartition") result(status)
      import :: c_ptr, c_int, c_int64_t, c_float
      type(c_ptr), value :: handle, plan
      integer(c_int), value :: capacity
      integer(c_int), intent(out) :: parts
      integer(c_int), intent(out) :: devices(*)
      integer(c_int64_t), intent(out) :: firstRows(*), rows(*), products(*)
      real(c_float), intent(out) :: numericMs(*)
      integer(c_int) :: status
    end function spgemmPlanGetPartition

    ! C left as the parts' row blocks (plans created from now on on a handle
    ! with spgemmSetDevices); enabled: 1 = on, 0 = off (the default).
    function spgemmSetOutputDistributed(handle, enabled) &
        bind(C, name="spgemmSetOutputDistributed") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: enabled
      integer(c_int) :: status
    end function spgemmSetOutputDistributed

    function spgemmGetOutputDistributed(handle, enabled) &
        bind(C, name="spgemmGetOutputDistributed") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: enabled
      integer(c_int) :: status
    end function spgemmGetOutputDistributed

    ! After spgemmSymbolic, for a distributed C: its row blocks in row order.
    ! count receives their number; the first capacity go to blocks, which is
    ! optional (absent: NULL, with capacity 0, to ask for the count only:
    ! spgemmPlanGetRowBlocks(handle, plan, 0_c_int, count=n)).
    function spgemmPlanGetRowBlocks(handle, plan, capacity, blocks, count) &
        bind(C, name="spgemmPlanGetRowBlocks") result(status)
      import :: c_ptr, c_int, spgemm_row_block
      type(c_ptr), value :: handle, plan
      integer(c_int), value :: capacity
      type(spgemm_row_block), intent(out), optional :: blocks(*)
      integer(c_int), intent(out) :: count
      integer(c_int) :: status
    end function spgemmPlanGetRowBlocks

    ! C in host memory with A and B on the device: the chunk bound in bytes.
    function spgemmSetOutputChunkBytes(handle, bytes) bind(C, name="spgemmSetOutputChunkBytes") &
        result(status)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: handle
      integer(c_size_t), value :: bytes
      integer(c_int) :: status
    end function spgemmSetOutputChunkBytes

    function spgemmGetOutputChunkBytes(handle, bytes) bind(C, name="spgemmGetOutputChunkBytes") &
        result(status)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: handle
      integer(c_size_t), intent(out) :: bytes
      integer(c_int) :: status
    end function spgemmGetOutputChunkBytes

    function spgemmGetStructureVerification(handle, enabled) &
        bind(C, name="spgemmGetStructureVerification") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: enabled
      integer(c_int) :: status
    end function spgemmGetStructureVerification

    ! ---- CSR descriptors (never own the arrays) ------------------------------
    ! rowOffsets: rows + 1 entries; colInd, values: nnz entries (any may be
    ! c_null_ptr here). offsetType, indexType: SPGEMM_INDEX_*; indexBase:
    ! SPGEMM_INDEX_BASE_*; valueType: a CUDA_* parameter above.
    function spgemmCreateCsr(mat, rows, cols, nnz, rowOffsets, colInd, values, offsetType, &
                             indexType, indexBase, valueType) &
        bind(C, name="spgemmCreateCsr") result(status)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), intent(out) :: mat
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: rowOffsets
      type(c_ptr), value :: colInd
      type(c_ptr), value :: values
      integer(c_int), value :: offsetType
      integer(c_int), value :: indexType
      integer(c_int), value :: indexBase
      integer(c_int), value :: valueType
      integer(c_int) :: status
    end function spgemmCreateCsr

    function spgemmDestroyMatrix(mat) bind(C, name="spgemmDestroyMatrix") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: mat
      integer(c_int) :: status
    end function spgemmDestroyMatrix

    function spgemmCsrSetPointers(mat, rowOffsets, colInd, values) &
        bind(C, name="spgemmCsrSetPointers") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: mat
      type(c_ptr), value :: rowOffsets
      type(c_ptr), value :: colInd
      type(c_ptr), value :: values
      integer(c_int) :: status
    end function spgemmCsrSetPointers

    ! Every output is optional; absent ones are not written.
    function spgemmCsrGet(mat, rows, cols, nnz, rowOffsets, colInd, values, offsetType, &
                          indexType, indexBase, valueType) &
        bind(C, name="spgemmCsrGet") result(status)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: mat
      integer(c_int64_t), intent(out), optional :: rows
      integer(c_int64_t), intent(out), optional :: cols
      integer(c_int64_t), intent(out), optional :: nnz
      type(c_ptr), intent(out), optional :: rowOffsets
      type(c_ptr), intent(out), optional :: colInd
      type(c_ptr), intent(out), optional :: values
      integer(c_int), intent(out), optional :: offsetType
      integer(c_int), intent(out), optional :: indexType
      integer(c_int), intent(out), optional :: indexBase
      integer(c_int), intent(out), optional :: valueType
      integer(c_int) :: status
    end function spgemmCsrGet

    ! The same matrix on another device (device: a 0-based CUDA ordinal), read
    ! in place by a part of a split product there; rowOffsets c_null_ptr
    ! removes it (docs/api.md)
    function spgemmCsrSetReplica(mat, device, rowOffsets, colInd, values) &
        bind(C, name="spgemmCsrSetReplica") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: mat
      integer(c_int), value :: device
      type(c_ptr), value :: rowOffsets
      type(c_ptr), value :: colInd
      type(c_ptr), value :: values
      integer(c_int) :: status
    end function spgemmCsrSetReplica

    function spgemmCsrGetReplica(mat, device, rowOffsets, colInd, values) &
        bind(C, name="spgemmCsrGetReplica") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: mat
      integer(c_int), value :: device
      type(c_ptr), intent(out) :: rowOffsets
      type(c_ptr), intent(out) :: colInd
      type(c_ptr), intent(out) :: values
      integer(c_int) :: status
    end function spgemmCsrGetReplica

    ! memory: SPGEMM_MEMORY_DEVICE (the default) or SPGEMM_MEMORY_HOST
    function spgemmCsrSetMemoryType(mat, memory) bind(C, name="spgemmCsrSetMemoryType") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: mat
      integer(c_int), value :: memory
      integer(c_int) :: status
    end function spgemmCsrSetMemoryType

    function spgemmCsrGetMemoryType(mat, memory) bind(C, name="spgemmCsrGetMemoryType") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: mat
      integer(c_int), intent(out) :: memory
      integer(c_int) :: status
    end function spgemmCsrGetMemoryType

    ! ---- a plan for C = alpha * op(A) * op(B) --------------------------------
    ! The plan keeps the three descriptors: they must outlive it.
    function spgemmPlanCreate(handle, plan, opA, opB, A, B, C, computeType) &
        bind(C, name="spgemmPlanCreate") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      type(c_ptr), intent(out) :: plan
      integer(c_int), value :: opA
      integer(c_int), value :: opB
      type(c_ptr), value :: A
      type(c_ptr), value :: B
      type(c_ptr), value :: C
      integer(c_int), value :: computeType
      integer(c_int) :: status
    end function spgemmPlanCreate

    ! C = alpha * op(A) * op(B) + beta * D: D has C's shape, types and memory
    ! and any pattern; C's pattern is the union of the product's and D's. D
    ! may be a previous product's C (never this plan's C). Numeric phases of
    ! such a plan take beta: spgemmNumericWithAddend.
    function spgemmPlanCreateWithAddend(handle, plan, opA, opB, A, B, D, C, computeType) &
        bind(C, name="spgemmPlanCreateWithAddend") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      type(c_ptr), intent(out) :: plan
      integer(c_int), value :: opA
      integer(c_int), value :: opB
      type(c_ptr), value :: A
      type(c_ptr), value :: B
      type(c_ptr), value :: D
      type(c_ptr), value :: C
      integer(c_int), value :: computeType
      integer(c_int) :: status
    end function spgemmPlanCreateWithAddend

    function spgemmPlanDestroy(plan) bind(C, name="spgemmPlanDestroy") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: plan
      integer(c_int) :: status
    end function spgemmPlanDestroy

    ! The most device workspace the plan holds at once (0 for host memory)
    function spgemmPlanGetWorkspaceSize(handle, plan, bytes) &
        bind(C, name="spgemmPlanGetWorkspaceSize") result(status)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: handle
      type(c_ptr), value :: plan
      integer(c_size_t), intent(out) :: bytes
      integer(c_int) :: status
    end function spgemmPlanGetWorkspaceSize

    ! buffer: device memory (cudaMalloc), 256-byte aligned, at least the size
    ! above, kept until spgemmPlanDestroy; set before spgemmAnalyze.
    ! c_null_ptr and 0: back to the handle's pool or allocator.
    function spgemmPlanSetWorkspace(handle, plan, buffer, bytes) &
        bind(C, name="spgemmPlanSetWorkspace") result(status)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: handle
      type(c_ptr), value :: plan
      type(c_ptr), value :: buffer
      integer(c_size_t), value :: bytes
      integer(c_int) :: status
    end function spgemmPlanSetWorkspace

    function spgemmAnalyze(handle, plan) bind(C, name="spgemmAnalyze") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      type(c_ptr), value :: plan
      integer(c_int) :: status
    end function spgemmAnalyze

    ! Writes C's row offsets (in C's index base) and returns nnz(C) in nnzC.
    function spgemmSymbolic(handle, plan, nnzC) bind(C, name="spgemmSymbolic") result(status)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: handle
      type(c_ptr), value :: plan
      integer(c_int64_t), intent(out) :: nnzC
      integer(c_int) :: status
    end function spgemmSymbolic
  end interface

  ! spgemmNumeric(handle, plan, alpha): C = alpha * A * B. alpha is a host
  ! value of the compute type: real(c_float) for CUDA_R_32F, real(c_double)
  ! for CUDA_R_64F, complex(c_float_complex) for CUDA_C_32F,
  ! complex(c_double_complex) for CUDA_C_64F (a literal such as 2.0_c_double
  ! is fine), or a type(c_ptr) to one (c_loc). A value of another kind than
  ! the compute type is read as the wrong type, as in C. Asynchronous on the
  ! handle's stream for device matrices.
  interface spgemmNumeric
    function spgemmNumeric_ptr(handle, plan, alpha) bind(C, name="spgemmNumeric") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      type(c_ptr), value :: plan
      type(c_ptr), value :: alpha
      integer(c_int) :: status
    end function spgemmNumeric_ptr
    module procedure spgemmNumeric_r32, spgemmNumeric_r64, spgemmNumeric_c32, spgemmNumeric_c64
  end interface spgemmNumeric

  ! spgemmNumericWithAddend(handle, plan, alpha, beta): C = alpha * A * B +
  ! beta * D for a plan from spgemmPlanCreateWithAddend; alpha and beta as
  ! for spgemmNumeric, both of the same kind (or both type(c_ptr)).
  interface spgemmNumericWithAddend
    function spgemmNumericWithAddend_ptr(handle, plan, alpha, beta) &
        bind(C, name="spgemmNumericWithAddend") result(status)
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      type(c_ptr), value :: plan
      type(c_ptr), value :: alpha
      type(c_ptr), value :: beta
      integer(c_int) :: status
    end function spgemmNumericWithAddend_ptr
    module procedure spgemmNumericWithAddend_r32, spgemmNumericWithAddend_r64
    module procedure spgemmNumericWithAddend_c32, spgemmNumericWithAddend_c64
  end interface spgemmNumericWithAddend

  ! strlen from the C library, to measure the strings returned above
  interface
    function c_strlen(str) bind(C, name="strlen") result(length)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: str
      integer(c_size_t) :: length
    end function c_strlen
  end interface

contains

  function spgemmNumeric_r32(handle, plan, alpha) result(status)
    type(c_ptr), intent(in) :: handle, plan
    real(c_float), intent(in) :: alpha
    integer(c_int) :: status
    real(c_float), target :: alpha_copy
    alpha_copy = alpha
    status = spgemmNumeric_ptr(handle, plan, c_loc(alpha_copy))
  end function spgemmNumeric_r32

  function spgemmNumeric_r64(handle, plan, alpha) result(status)
    type(c_ptr), intent(in) :: handle, plan
    real(c_double), intent(in) :: alpha
    integer(c_int) :: status
    real(c_double), target :: alpha_copy
    alpha_copy = alpha
    status = spgemmNumeric_ptr(handle, plan, c_loc(alpha_copy))
  end function spgemmNumeric_r64

  function spgemmNumericWithAddend_r32(handle, plan, alpha, beta) result(status)
    type(c_ptr), intent(in) :: handle, plan
    real(c_float), intent(in) :: alpha, beta
    integer(c_int) :: status
    real(c_float), target :: alpha_copy, beta_copy
    alpha_copy = alpha
    beta_copy = beta
    status = spgemmNumericWithAddend_ptr(handle, plan, c_loc(alpha_copy), c_loc(beta_copy))
  end function spgemmNumericWithAddend_r32

  function spgemmNumericWithAddend_r64(handle, plan, alpha, beta) result(status)
    type(c_ptr), intent(in) :: handle, plan
    real(c_double), intent(in) :: alpha, beta
    integer(c_int) :: status
    real(c_double), target :: alpha_copy, beta_copy
    alpha_copy = alpha
    beta_copy = beta
    status = spgemmNumericWithAddend_ptr(handle, plan, c_loc(alpha_copy), c_loc(beta_copy))
  end function spgemmNumericWithAddend_r64

  function spgemmNumeric_c32(handle, plan, alpha) result(status)
    type(c_ptr), intent(in) :: handle, plan
    complex(c_float_complex), intent(in) :: alpha
    integer(c_int) :: status
    complex(c_float_complex), target :: alpha_copy
    alpha_copy = alpha
    status = spgemmNumeric_ptr(handle, plan, c_loc(alpha_copy))
  end function spgemmNumeric_c32

  function spgemmNumeric_c64(handle, plan, alpha) result(status)
    type(c_ptr), intent(in) :: handle, plan
    complex(c_double_complex), intent(in) :: alpha
    integer(c_int) :: status
    complex(c_double_complex), target :: alpha_copy
    alpha_copy = alpha
    status = spgemmNumeric_ptr(handle, plan, c_loc(alpha_copy))
  end function spgemmNumeric_c64

  function spgemmNumericWithAddend_c32(handle, plan, alpha, beta) result(status)
    type(c_ptr), intent(in) :: handle, plan
    complex(c_float_complex), intent(in) :: alpha, beta
    integer(c_int) :: status
    complex(c_float_complex), target :: alpha_copy, beta_copy
    alpha_copy = alpha
    beta_copy = beta
    status = spgemmNumericWithAddend_ptr(handle, plan, c_loc(alpha_copy), c_loc(beta_copy))
  end function spgemmNumericWithAddend_c32

  function spgemmNumericWithAddend_c64(handle, plan, alpha, beta) result(status)
    type(c_ptr), intent(in) :: handle, plan
    complex(c_double_complex), intent(in) :: alpha, beta
    integer(c_int) :: status
    complex(c_double_complex), target :: alpha_copy, beta_copy
    alpha_copy = alpha
    beta_copy = beta
    status = spgemmNumericWithAddend_ptr(handle, plan, c_loc(alpha_copy), c_loc(beta_copy))
  end function spgemmNumericWithAddend_c64

  ! A NUL-terminated C string as a Fortran string ("" for a null pointer).
  function spgemm_c_string(str) result(fstr)
    type(c_ptr), intent(in) :: str
    character(len=:), allocatable :: fstr
    character(kind=c_char), pointer :: chars(:)
    integer :: length, i
    if (.not. c_associated(str)) then
      fstr = ""
      return
    end if
    length = int(c_strlen(str))
    call c_f_pointer(str, chars, [length])
    allocate(character(len=length) :: fstr)
    do i = 1, length
      fstr(i:i) = chars(i)
    end do
  end function spgemm_c_string

  ! "SPGEMM_STATUS_INVALID_VALUE", ... (spgemmGetErrorName)
  function spgemm_error_name(status) result(name)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: name
    name = spgemm_c_string(spgemmGetErrorName(status))
  end function spgemm_error_name

  ! "an argument has an invalid value", ... (spgemmGetErrorString)
  function spgemm_error_string(status) result(message)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: message
    message = spgemm_c_string(spgemmGetErrorString(status))
  end function spgemm_error_string

  ! "<function>: <detail>" of the last failed call on this thread, or ""
  ! (spgemmGetLastErrorMessage)
  function spgemm_last_error_message() result(message)
    character(len=:), allocatable :: message
    message = spgemm_c_string(spgemmGetLastErrorMessage())
  end function spgemm_last_error_message

end module spgemm
