"""One thin module per DVC stage (device, compile, test, ceilings, bench, profile); dvc.yaml runs them."""
