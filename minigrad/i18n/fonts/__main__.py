from minigrad.i18n.fonts import main

raise SystemExit(main())
