V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] Output code: 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # AOT ID: ['0_inference']
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from ctypes import c_void_p, c_long, c_int
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import torch
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import math
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import random
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import os
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import tempfile
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from math import inf, nan
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from cmath import nanj
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.hooks import run_intermediate_hooks
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.utils import maybe_profile
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.codegen.memory_planning import _align as align
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch import device, empty_strided
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.async_compile import AsyncCompile
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.select_algorithm import extern_kernels
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton.language as tl
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._C import _cuda_getCurrentRawStream as get_raw_stream
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] aten = torch.ops.aten
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] inductor_ops = torch.ops.inductor
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] _quantized = torch.ops._quantized
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_size_stride = torch._C._dynamo.guards.assert_size_stride
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_alignment = torch._C._dynamo.guards.assert_alignment
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] alloc_from_pool = torch.ops.inductor._alloc_from_pool
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile = AsyncCompile()
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # kernel path: /tmp/torchinductor_root/ed/cedeyocikb2ivoru32mtdzun77rmxp4ate74xjsn3vqa3nw3yeou.py
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Topologically Sorted Source Nodes: [xf, abs_1, amax, amax_1, truediv, scale, truediv_1, clamp_1, q], Original ATen: [aten._to_copy, aten.abs, aten.amax, aten.view, aten.div, aten.clamp]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Source node to ATen node mapping:
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   abs_1 => abs_1
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   amax => amax
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   amax_1 => view
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   clamp_1 => clamp_max, clamp_min_1
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   q => convert_element_type_1
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   scale => clamp_min
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   truediv => div
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   truediv_1 => div_1
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   xf => convert_element_type
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Graph fragment:
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %arg0_1 : Tensor "bf16[1, 3584][3584, 1]cuda:0" = PlaceHolder[target=arg0_1]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %amax : Tensor "f32[][]cuda:0" = PlaceHolder[target=amax]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %clamp_min : Tensor "f32[1][1]cuda:0" = PlaceHolder[target=clamp_min]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %convert_element_type : Tensor "f32[1, 3584][3584, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%arg0_1, torch.float32), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %abs_1 : Tensor "f32[1, 3584][3584, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.abs.default](args = (%convert_element_type,), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %amax : Tensor "f32[][]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.amax.default](args = (%abs_1,), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %view : Tensor "f32[1][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%amax, [1]), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %div : Tensor "f32[1][1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%view, 448.0), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %clamp_min : Tensor "f32[1][1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.clamp_min.default](args = (%div, 4.359654017857143e-06), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %div_1 : Tensor "f32[1, 3584][3584, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%convert_element_type, %clamp_min), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %clamp_min_1 : Tensor "f32[1, 3584][3584, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_min.default](args = (%div_1, -448.0), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %clamp_max : Tensor "f32[1, 3584][3584, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.clamp_max.default](args = (%clamp_min_1, 448.0), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %convert_element_type_1 : Tensor "f8e4m3fn[1, 3584][3584, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%clamp_max, torch.float8_e4m3fn), kwargs = {})
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   return %amax,%clamp_min,%convert_element_type_1
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] triton_red_fused__to_copy_abs_amax_clamp_div_view_0 = async_compile.triton('triton_red_fused__to_copy_abs_amax_clamp_div_view_0', '''
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton.language as tl
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime import triton_helpers, triton_heuristics
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] triton_helpers.set_driver_to_gpu()
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] @triton_heuristics.reduction(
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     size_hints={'x': 1, 'r0_': 4096},
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     reduction_hint=ReductionHint.INNER,
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     filename=__file__,
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*bf16', 'out_ptr0': '*fp8e4nv', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_red_fused__to_copy_abs_amax_clamp_div_view_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'add_persistent_rblock': True, 'tiling_scores': {'r0_': 14336}}
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] )
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] @triton.jit
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def triton_red_fused__to_copy_abs_amax_clamp_div_view_0(in_out_ptr0, in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xnumel = 1
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     r0_numel = 3584
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     rnumel = r0_numel
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     RBLOCK: tl.constexpr = R0_BLOCK
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xoffset = tl.program_id(0) * XBLOCK
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     r0_base = tl.arange(0, R0_BLOCK)[None, :]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     rbase = r0_base
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     _tmp4 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         r0_index = r0_offset + r0_base
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         r0_mask = r0_index < r0_numel
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         roffset = r0_offset
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         rindex = r0_index
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         r0_0 = r0_index
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp0 = tl.load(in_ptr0 + (r0_0), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp1 = tmp0.to(tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp2 = tl_math.abs(tmp1)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp5 = triton_helpers.maximum(_tmp4, tmp3)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         _tmp4 = tl.where(r0_mask, tmp5, _tmp4)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp4 = triton_helpers.max2(_tmp4, 1)[:, None]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp6 = tl.full([1, 1], 0.002232142857142857, tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp7 = tmp4 * tmp6
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp8 = tl.full([1, 1], 4.359654017857143e-06, tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp9 = triton_helpers.maximum(tmp7, tmp8)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tl.debug_barrier()
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tl.store(in_out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp9, None)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         r0_index = r0_offset + r0_base
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         r0_mask = r0_index < r0_numel
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         roffset = r0_offset
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         rindex = r0_index
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         r0_0 = r0_index
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp10 = tl.load(in_ptr0 + (r0_0), r0_mask, eviction_policy='evict_first', other=0.0).to(tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp11 = tmp10.to(tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp12 = (tmp11 / tmp9)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp13 = tl.full([1, 1], -448.0, tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp14 = triton_helpers.maximum(tmp12, tmp13)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp15 = tl.full([1, 1], 448.0, tl.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp16 = triton_helpers.minimum(tmp14, tmp15)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tmp17 = tmp16.to(tl.float8e4nv)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         tl.store(out_ptr0 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp17, r0_mask)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] ''', device_str='cuda')
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile.wait(globals())
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] del async_compile
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] class Runner:
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def __init__(self, partitions):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = partitions
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def recursively_apply_fns(self, fns):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         new_callables = []
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         for fn, c in zip(fns, self.partitions):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             new_callables.append(fn(c))
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = new_callables
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def call(self, args):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         arg0_1, = args
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         args.clear()
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         assert_size_stride(arg0_1, (1, 3584), (3584, 1))
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         with torch.cuda._DeviceGuard(0):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             torch.cuda.set_device(0)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             buf0 = empty_strided_cuda((), (), torch.float32)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             buf1 = reinterpret_tensor(buf0, (1, ), (1, ), 0); del buf0  # reuse
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             buf2 = empty_strided_cuda((1, 3584), (3584, 1), torch.float8_e4m3fn)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             # Topologically Sorted Source Nodes: [xf, abs_1, amax, amax_1, truediv, scale, truediv_1, clamp_1, q], Original ATen: [aten._to_copy, aten.abs, aten.amax, aten.view, aten.div, aten.clamp]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             stream0 = get_raw_stream(0)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             triton_red_fused__to_copy_abs_amax_clamp_div_view_0.run(buf1, arg0_1, buf2, 1, 3584, stream=stream0)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             del arg0_1
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         return (buf2, buf1, )
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] runner = Runner(partitions=[])
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] call = runner.call
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] recursively_apply_fns = runner.recursively_apply_fns
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def get_args():
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._dynamo.testing import rand_strided
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     arg0_1 = rand_strided((1, 3584), (3584, 1), device='cuda:0', dtype=torch.bfloat16)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return [arg0_1]
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def benchmark_compiled_module(args, times=10, repeat=10):
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.utils import print_performance
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     fn = lambda: call(list(args))
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return print_performance(fn, times=times, repeat=repeat)
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] if __name__ == "__main__":
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.wrapper_benchmark import compiled_module_main
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     args = get_args()
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
V1204 16:11:48.940000 817 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:11:48.941000 817 torch/_inductor/codecache.py:1348] [0/0] [__output_code] Output code written to: /tmp/torchinductor_root/nw/cnwvqq2xj7hd3jrfmsdfe53srawpjemlclstsbckruggzsolxrkp.py
