"""The bench table (python -m egg.bench): egg-eval's same-process cuBLAS
baseline gets a table of its own, for the problems that have one."""
from egg import bench


def test_cublas_rows_only_where_egg_eval_timed_cublas(capsys):
    rows = [
        {"problem": "matmul", "status": "ok", "egg_ms": 0.19, "best_ms": 0.19,
         "eager_ms": 0.18, "cublas_ms": 0.188},
        {"problem": "add", "status": "ok", "egg_ms": 0.02, "best_ms": 0.02,
         "eager_ms": 0.03, "cublas_ms": None},
    ]
    bench.print_table(rows, bench.summarize(rows, [0]))
    out = capsys.readouterr().out
    blas = out[out.index("cuBLAS ms (egg-eval, same process)"):]
    assert "| matmul | 0.1900 | 0.1880 | 0.99x |" in blas
    assert "| add |" not in blas


def test_no_cublas_table_without_baselines(capsys):
    rows = [{"problem": "add", "status": "ok", "egg_ms": 0.02, "best_ms": 0.02}]
    bench.print_table(rows, bench.summarize(rows, [0]))
    assert "cuBLAS" not in capsys.readouterr().out
