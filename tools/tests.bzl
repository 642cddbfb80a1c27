"""The project's two kinds of CPU test, so that each BUILD file names only what differs."""

def cunit_test(name, deps = [], size = "small", **kwargs):
    """A CUnit test from name.c with the shared runner (//core:cunit)."""
    native.cc_test(
        name = name,
        size = size,
        srcs = kwargs.pop("srcs", [name + ".c"]),
        deps = deps + ["//core:cunit", "@debian//:cunit"],
        **kwargs
    )

def tool_test(name, tools, data = [], size = "small", **kwargs):
    """A shell test from name.sh (which sources tools/testing.sh), given the paths of tools (labels) as its arguments."""
    native.sh_test(
        name = name,
        size = size,
        srcs = [name + ".sh"],
        args = ["$(rootpath %s)" % t for t in tools],
        data = tools + data + ["//tools:testing.sh"],
        **kwargs
    )
