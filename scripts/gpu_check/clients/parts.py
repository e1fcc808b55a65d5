"""What the clients share: running each part of a client, recording its result or its error, and
writing the results (OUT.npz) and each part's status (OUT.json) for gpu-check to compare."""
import json
import traceback


def run(parts, to_numpy, status, out):
    """Runs every part (a name -> function returning a device array); `to_numpy` brings a
    result to the host, synchronising. A part that raises is recorded and the others go on.
    The exit status: 0 when no part failed."""
    import numpy as np

    arrays = {}
    status.setdefault("parts", {})
    for name, part in parts.items():
        if name in status["parts"]:  # decided before running (skipped)
            continue
        try:
            arrays[name] = to_numpy(part())
            status["parts"][name] = {"ok": True, "shape": list(arrays[name].shape)}
            print(f"{name}: sum {float(arrays[name].astype(np.float64).sum()):.6e}")
        except Exception as e:  # noqa: BLE001 - recorded; the other parts still run
            status["parts"][name] = {"error": f"{type(e).__name__}: {e}"[:500]}
            print(f"{name}: FAILED {type(e).__name__}: {e}")
            traceback.print_exc()
    np.savez(out + ".npz", **arrays)
    with open(out + ".json", "w") as f:
        json.dump(status, f, indent=1)
    return 0 if all("error" not in p for p in status["parts"].values()) else 1
