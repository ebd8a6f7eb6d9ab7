V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] Output code: 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] # AOT ID: ['0_inference']
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from ctypes import c_void_p, c_long, c_int
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import torch
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import math
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import random
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import os
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] import tempfile
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from math import inf, nan
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from cmath import nanj
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.hooks import run_intermediate_hooks
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.utils import maybe_profile
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.codegen.memory_planning import _align as align
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch import device, empty_strided
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.async_compile import AsyncCompile
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] from torch._inductor.select_algorithm import extern_kernels
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] aten = torch.ops.aten
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] inductor_ops = torch.ops.inductor
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] _quantized = torch.ops._quantized
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_size_stride = torch._C._dynamo.guards.assert_size_stride
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] assert_alignment = torch._C._dynamo.guards.assert_alignment
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] alloc_from_pool = torch.ops.inductor._alloc_from_pool
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile = AsyncCompile()
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] async_compile.wait(globals())
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] del async_compile
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] class Runner:
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def __init__(self, partitions):
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = partitions
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def recursively_apply_fns(self, fns):
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         new_callables = []
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         for fn, c in zip(fns, self.partitions):
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             new_callables.append(fn(c))
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         self.partitions = new_callables
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     def call(self, args):
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         arg0_1, arg1_1 = args
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         args.clear()
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         assert_size_stride(arg0_1, (8192, 3584), (3584, 1))
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         assert_size_stride(arg1_1, (8192, 3584), (3584, 1))
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         with torch.cuda._DeviceGuard(0):
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             torch.cuda.set_device(0)
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             buf0 = empty_strided_cuda((8192, 8192), (8192, 1), torch.bfloat16)
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.t, aten.mm]
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             extern_kernels.mm(arg1_1, reinterpret_tensor(arg0_1, (3584, 8192), (1, 3584), 0), out=buf0)
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             del arg0_1
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]             del arg1_1
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]         return (buf0, )
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] runner = Runner(partitions=[])
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] call = runner.call
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] recursively_apply_fns = runner.recursively_apply_fns
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def get_args():
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._dynamo.testing import rand_strided
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     arg0_1 = rand_strided((8192, 3584), (3584, 1), device='cuda:0', dtype=torch.bfloat16)
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     arg1_1 = rand_strided((8192, 3584), (3584, 1), device='cuda:0', dtype=torch.bfloat16)
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return [arg0_1, arg1_1]
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] def benchmark_compiled_module(args, times=10, repeat=10):
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.utils import print_performance
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     fn = lambda: call(list(args))
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     return print_performance(fn, times=times, repeat=repeat)
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] if __name__ == "__main__":
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     from torch._inductor.wrapper_benchmark import compiled_module_main
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     args = get_args()
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code]     compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
V1204 16:13:44.411000 2049 torch/_inductor/codecache.py:1347] [0/0] [__output_code] 
V1204 16:13:44.412000 2049 torch/_inductor/codecache.py:1348] [0/0] [__output_code] Output code written to: /tmp/torchinductor_root/yn/cynr4wglyojgco5qht2wip6ibytaipcefsi33dr563jx4t32rjul.py
