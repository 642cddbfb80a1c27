"""The local CUDA toolkit as a Bazel repository.

The toolkit root is $TB_CUDA_PATH when set, else /usr/local/cuda.
"""

def _cuda_configure_impl(rctx):
    root = rctx.os.environ.get("TB_CUDA_PATH", "/usr/local/cuda")
    nvcc = rctx.path(root + "/bin/nvcc")
    if not nvcc.exists:
        fail("no nvcc at %s: install the CUDA toolkit or set TB_CUDA_PATH" % nvcc)
    for d in ["include", "lib64", "bin"]:
        rctx.symlink(root + "/" + d, d)
    rctx.file("defs.bzl", 'CUDA_ROOT = "%s"\nNVCC = "%s"\n' % (root, nvcc))
    rctx.template("BUILD", rctx.attr._build_tpl, {})

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["TB_CUDA_PATH"],
    local = True,
    attrs = {"_build_tpl": attr.label(default = "//tools/cuda:local_cuda.BUILD")},
)
