from instruction_gate.cli import main

raise SystemExit(main())
