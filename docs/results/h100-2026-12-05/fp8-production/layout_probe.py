"""Which weight-scale layout does torch._scaled_mm (1x128 act x 128x128 weight) read correctly when kb % 4 != 0?"""
import torch, time
torch.manual_seed(0)
dev = "cuda"
def cdiv(a, b): return -(-a // b)
def case(m, n, k):
    kb, nb = cdiv(k, 128), cdiv(n, 128)
    a = (torch.randn(m, k, device=dev)).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, device=dev)).to(torch.float8_e4m3fn)
    sa = torch.rand(m, kb, device=dev) + 0.5
    sb = torch.rand(nb, kb, device=dev) + 0.5
    af = a.float() * sa.repeat_interleave(128, 1)[:, :k]
    bf = b.float() * sb.repeat_interleave(128, 0)[:n].repeat_interleave(128, 1)[:, :k]
    ref = af @ bf.t()
    return a, b, sa, sb, ref, kb, nb
def err(out, ref):
    return ((out.float() - ref).abs().max() / ref.abs().max()).item()
def v_stride_l4(a, b, sa, sb, kb, nb, k):
    l4 = cdiv(kb, 4) * 4
    h = torch.zeros(nb, l4, device=dev); h[:, :kb] = sb
    return torch._scaled_mm(a, b.t(), sa.t().contiguous().t(), h[:, :kb].t(), out_dtype=torch.bfloat16)
def v_shape_l4(a, b, sa, sb, kb, nb, k):
    l4 = cdiv(kb, 4) * 4
    h = torch.zeros(nb, l4, device=dev); h[:, :kb] = sb
    return torch._scaled_mm(a, b.t(), sa.t().contiguous().t(), h.t(), out_dtype=torch.bfloat16)
def v_pad_k(a, b, sa, sb, kb, nb, k):
    kp = cdiv(k, 512) * 512; l4 = kp // 128
    ap = torch.nn.functional.pad(a.view(torch.uint8), (0, kp - k)).view(torch.float8_e4m3fn)
    bp = torch.nn.functional.pad(b.view(torch.uint8), (0, kp - k)).view(torch.float8_e4m3fn)
    sap = torch.ones(a.shape[0], l4, device=dev); sap[:, :kb] = sa
    h = torch.ones(nb, l4, device=dev); h[:, :kb] = sb
    return torch._scaled_mm(ap, bp.t(), sap.t().contiguous().t(), h.t(), out_dtype=torch.bfloat16)
def v_nmajor(a, b, sa, sb, kb, nb, k):
    return torch._scaled_mm(a, b.t(), sa.t().contiguous().t(), sb.t().contiguous(), out_dtype=torch.bfloat16)
print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name())
for (m, n, k) in [(16, 7168, 2304), (8192, 7168, 2304), (1008, 2000, 1408), (32, 1536, 7168), (16, 256, 384)]:
    a, b, sa, sb, ref, kb, nb = case(m, n, k)
    for name, f in [("stride_l4", v_stride_l4), ("shape_l4", v_shape_l4), ("pad_k_512", v_pad_k), ("nmajor", v_nmajor)]:
        try:
            out = f(a, b, sa, sb, kb, nb, k); torch.cuda.synchronize()
            e = err(out, ref)
            # which columns are off
            colbad = ((out.float() - ref).abs().amax(0) > 0.02 * ref.abs().max()).nonzero()
            first = colbad[0].item() if len(colbad) else None
            print(f"m{m} n{n} k{k} kb{kb}: {name:10s} rel err {e:.4f} first bad col {first}")
        except Exception as ex:
            print(f"m{m} n{n} k{k} kb{kb}: {name:10s} ERROR {str(ex).splitlines()[0][:150]}")
for m in (1, 4, 8):
    a, b, sa, sb, ref, kb, nb = case(m, 1536, 7168)
    try:
        out = v_stride_l4(a, b, sa, sb, kb, nb, 7168); torch.cuda.synchronize(); print(f"m{m}: rel err {err(out, ref):.4f}")
    except Exception as ex:
        print(f"m{m}: ERROR {str(ex).splitlines()[0][:150]}")
