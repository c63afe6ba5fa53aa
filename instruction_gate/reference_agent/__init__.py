"""The offline reference agent: a rule-following stand-in for a coding agent, without a model.

It reads the instruction files a real agent would load, interprets a small directive grammar
in them (`directives`), resolves contradictions (`plan`), runs the commands it was told to run
(`executor`), makes the task's change from the reference solution (`solution`) and reports
simulated usage (`usage`). `agent` wires these together behind the adapter protocol.
"""
