V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] Output code: 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # AOT ID: ['0_inference']
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from ctypes import c_void_p, c_long, c_int
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import torch
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import math
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import random
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import os
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import tempfile
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from math import inf, nan
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from cmath import nanj
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.hooks import run_intermediate_hooks
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.utils import maybe_profile
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.codegen.memory_planning import _align as align
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch import device, empty_strided
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.async_compile import AsyncCompile
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.select_algorithm import extern_kernels
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton.language as tl
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._C import _cuda_getCurrentRawStream as get_raw_stream
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] aten = torch.ops.aten
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] inductor_ops = torch.ops.inductor
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] _quantized = torch.ops._quantized
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_size_stride = torch._C._dynamo.guards.assert_size_stride
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_alignment = torch._C._dynamo.guards.assert_alignment
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] alloc_from_pool = torch.ops.inductor._alloc_from_pool
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile = AsyncCompile()
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # kernel path: /tmp/torchinductor_root/7q/c7qmooyclb2avzakfegse7yl5ppg6huedhcqjbvkykwx7gzurhyu.py
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Topologically Sorted Source Nodes: [pad], Original ATen: [aten.constant_pad_nd]
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Source node to ATen node mapping:
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   pad => constant_pad_nd
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # Graph fragment:
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %arg0_1 : Tensor "f32[640, 64, 64][4096, 64, 1]cuda:0" = PlaceHolder[target=arg0_1]
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   %constant_pad_nd : Tensor "f32[640, 66, 66][4356, 66, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.constant_pad_nd.default](args = (%arg0_1, [1, 1, 1, 1], 0.0), kwargs = {})
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] #   return %constant_pad_nd
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] triton_poi_fused_constant_pad_nd_0 = async_compile.triton('triton_poi_fused_constant_pad_nd_0', '''
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import triton.language as tl
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime import triton_helpers, triton_heuristics
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] triton_helpers.set_driver_to_gpu()
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] @triton_heuristics.pointwise(
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     size_hints={'x': 4194304}, 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     filename=__file__,
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_constant_pad_nd_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 32788480}},
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     min_elem_per_thread=0
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] )
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] @triton.jit
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def triton_poi_fused_constant_pad_nd_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xnumel = 2787840
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xoffset = tl.program_id(0) * XBLOCK
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xindex = xoffset + tl.arange(0, XBLOCK)[:]
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     xmask = xindex < xnumel
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     x1 = ((xindex // 66) % 66)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     x0 = (xindex % 66)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     x2 = xindex // 4356
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     x4 = xindex
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp0 = (-1) + x1
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp1 = tl.full([1], 0, tl.int64)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp2 = tmp0 >= tmp1
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp3 = tl.full([1], 64, tl.int64)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp4 = tmp0 < tmp3
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp5 = (-1) + x0
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp6 = tmp5 >= tmp1
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp7 = tmp5 < tmp3
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp8 = tmp2 & tmp4
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp9 = tmp8 & tmp6
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp10 = tmp9 & tmp7
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tmp11 = tl.load(in_ptr0 + ((-65) + x0 + 64*x1 + 4096*x2), tmp10 & xmask, other=0.0)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     tl.store(out_ptr0 + (x4), tmp11, xmask)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] ''', device_str='cuda')
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile.wait(globals())
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] del async_compile
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] class Runner:
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def __init__(self, partitions):
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = partitions
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def recursively_apply_fns(self, fns):
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         new_callables = []
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         for fn, c in zip(fns, self.partitions):
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             new_callables.append(fn(c))
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = new_callables
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def call(self, args):
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         arg0_1, = args
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         args.clear()
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         assert_size_stride(arg0_1, (640, 64, 64), (4096, 64, 1))
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         with torch.cuda._DeviceGuard(0):
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             torch.cuda.set_device(0)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             buf0 = empty_strided_cuda((640, 66, 66), (4356, 66, 1), torch.float32)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             # Topologically Sorted Source Nodes: [pad], Original ATen: [aten.constant_pad_nd]
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             stream0 = get_raw_stream(0)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             triton_poi_fused_constant_pad_nd_0.run(arg0_1, buf0, 2787840, stream=stream0)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             del arg0_1
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         return (buf0, )
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] runner = Runner(partitions=[])
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] call = runner.call
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] recursively_apply_fns = runner.recursively_apply_fns
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def get_args():
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._dynamo.testing import rand_strided
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     arg0_1 = rand_strided((640, 64, 64), (4096, 64, 1), device='cuda:0', dtype=torch.float32)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return [arg0_1]
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def benchmark_compiled_module(args, times=10, repeat=10):
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.utils import print_performance
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     fn = lambda: call(list(args))
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return print_performance(fn, times=times, repeat=repeat)
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] if __name__ == "__main__":
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.wrapper_benchmark import compiled_module_main
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     args = get_args()
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
V1204 16:18:48.783000 4910 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:18:48.785000 4910 torch/_inductor/codecache.py:1348] [0/0] [__output_code] Output code written to: /tmp/torchinductor_root/ka/cka5hxqcfhcyns4fk7p475u7xex3yuzttehqlzfqj7wffwqthgqi.py
