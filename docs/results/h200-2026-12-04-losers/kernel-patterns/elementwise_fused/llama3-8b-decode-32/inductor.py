V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] Output code: 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # AOT ID: ['0_inference']
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from ctypes import c_void_p, c_long, c_int
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import torch
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import math
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import random
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import os
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import tempfile
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from math import inf, nan
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from cmath import nanj
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.hooks import run_intermediate_hooks
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.utils import maybe_profile
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.codegen.memory_planning import _align as align
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch import device, empty_strided
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.async_compile import AsyncCompile
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.select_algorithm import extern_kernels
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton.language as tl
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._C import _cuda_getCurrentRawStream as get_raw_stream
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] aten = torch.ops.aten
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] inductor_ops = torch.ops.inductor
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] _quantized = torch.ops._quantized
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_size_stride = torch._C._dynamo.guards.assert_size_stride
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_alignment = torch._C._dynamo.guards.assert_alignment
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] alloc_from_pool = torch.ops.inductor._alloc_from_pool
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile = AsyncCompile()
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # kernel path: /tmp/torchinductor_root/rs/crst24yeyah672w6wrxkiicopw5qnvrnltalnly35jiuxdlqtcll.py
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Topologically Sorted Source Nodes: [mul, add, silu], Original ATen: [aten.mul, aten.add, aten.silu]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Source node to ATen node mapping:
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   add => add
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   mul => mul
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   silu => add_1, convert_element_type, convert_element_type_1, div, exp, neg
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Graph fragment:
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %arg1_1 : Tensor "bf16[32, 4096][4096, 1]cuda:0" = PlaceHolder[target=arg1_1]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %arg0_1 : Tensor "bf16[4096][1]cuda:0" = PlaceHolder[target=arg0_1]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %arg2_1 : Tensor "bf16[4096][1]cuda:0" = PlaceHolder[target=arg2_1]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %mul : Tensor "bf16[32, 4096][4096, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg1_1, %arg0_1), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %add : Tensor "bf16[32, 4096][4096, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul, %arg2_1), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %convert_element_type : Tensor "f32[32, 4096][4096, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%add, torch.float32), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %neg : Tensor "f32[32, 4096][4096, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%convert_element_type,), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %exp : Tensor "f32[32, 4096][4096, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%neg,), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %add_1 : Tensor "f32[32, 4096][4096, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%exp, 1), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %div : Tensor "f32[32, 4096][4096, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%convert_element_type, %add_1), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %convert_element_type_1 : Tensor "bf16[32, 4096][4096, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%div, torch.bfloat16), kwargs = {})
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   return %convert_element_type_1
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] triton_poi_fused_add_mul_silu_0 = async_compile.triton('triton_poi_fused_add_mul_silu_0', '''
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton.language as tl
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime import triton_helpers, triton_heuristics
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] triton_helpers.set_driver_to_gpu()
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] @triton_heuristics.pointwise(
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     size_hints={'x': 131072}, 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     filename=__file__,
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_add_mul_silu_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 802816}},
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     min_elem_per_thread=0
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] )
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] @triton.jit
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def triton_poi_fused_add_mul_silu_0(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, XBLOCK : tl.constexpr):
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xnumel = 131072
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xoffset = tl.program_id(0) * XBLOCK
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xindex = xoffset + tl.arange(0, XBLOCK)[:]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xmask = tl.full([XBLOCK], True, tl.int1)[:]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     x2 = xindex
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     x0 = (xindex % 4096)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp0 = tl.load(in_ptr0 + (x2), None).to(tl.float32)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp1 = tl.load(in_ptr1 + (x0), None, eviction_policy='evict_last').to(tl.float32)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp3 = tl.load(in_ptr2 + (x0), None, eviction_policy='evict_last').to(tl.float32)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp2 = tmp0 * tmp1
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp4 = tmp2 + tmp3
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp5 = tmp4.to(tl.float32)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp6 = -tmp5
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp7 = libdevice.exp(tmp6)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp8 = tl.full([1], 1.0, tl.float32)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp9 = tmp7 + tmp8
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp10 = (tmp5 / tmp9)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp11 = tmp10.to(tl.float32)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tl.store(out_ptr0 + (x2), tmp11, None)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] ''', device_str='cuda')
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile.wait(globals())
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] del async_compile
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] class Runner:
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def __init__(self, partitions):
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = partitions
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def recursively_apply_fns(self, fns):
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         new_callables = []
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         for fn, c in zip(fns, self.partitions):
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             new_callables.append(fn(c))
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = new_callables
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def call(self, args):
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         arg0_1, arg1_1, arg2_1 = args
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         args.clear()
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         assert_size_stride(arg0_1, (4096, ), (1, ))
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         assert_size_stride(arg1_1, (32, 4096), (4096, 1))
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         assert_size_stride(arg2_1, (4096, ), (1, ))
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         with torch.cuda._DeviceGuard(0):
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             torch.cuda.set_device(0)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             buf0 = empty_strided_cuda((32, 4096), (4096, 1), torch.bfloat16)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             # Topologically Sorted Source Nodes: [mul, add, silu], Original ATen: [aten.mul, aten.add, aten.silu]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             stream0 = get_raw_stream(0)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             triton_poi_fused_add_mul_silu_0.run(arg1_1, arg0_1, arg2_1, buf0, 131072, stream=stream0)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             del arg0_1
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             del arg1_1
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             del arg2_1
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         return (buf0, )
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] runner = Runner(partitions=[])
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] call = runner.call
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] recursively_apply_fns = runner.recursively_apply_fns
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def get_args():
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._dynamo.testing import rand_strided
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     arg0_1 = rand_strided((4096, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     arg1_1 = rand_strided((32, 4096), (4096, 1), device='cuda:0', dtype=torch.bfloat16)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     arg2_1 = rand_strided((4096, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return [arg0_1, arg1_1, arg2_1]
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def benchmark_compiled_module(args, times=10, repeat=10):
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.utils import print_performance
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     fn = lambda: call(list(args))
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return print_performance(fn, times=times, repeat=repeat)
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] if __name__ == "__main__":
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.wrapper_benchmark import compiled_module_main
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     args = get_args()
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
V1204 16:17:22.434000 4137 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:17:22.436000 4137 torch/_inductor/codecache.py:1348] [0/0] [__output_code] Output code written to: /tmp/torchinductor_root/pk/cpkweilsssltmxhjb35qaa3jh4ry2rx7gaamlrar7h5rgx5yvlke.py
